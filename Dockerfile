# The service's container image: built in one stage, run from a second one that holds only the
# compiled JavaScript and the production dependencies, as an unprivileged user.
#   docker build -t docs-publishing-service .
#   docker run -p 4000:4000 -e DATABASE_URL=postgresql://… docs-publishing-service

FROM node:24-bookworm-slim AS build
WORKDIR /app
# Dependencies first, so that a change of the sources reuses this layer. `npm ci` runs
# `prisma generate` (postinstall), which reads the Prisma schema and its configuration.
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY rest-adapter ./rest-adapter
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The embedded database's directory, for a run without DATABASE_URL (one process only).
RUN mkdir -p /data && chown node:node /data
# The `node` user of the official image (uid 1000): the process cannot write the application.
USER node
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Exec form: node is PID 1 and gets SIGTERM from `docker stop`, drains and exits.
CMD ["node", "dist/src/main.js"]
