// Per-request DataLoaders of comments and what hangs off them (reactions, reply counts, repliers,
// first pages of replies): listing 20 comments with all of that costs the statements of listing 2.
// Kept beside the comment rules rather than in src/core/loaders.ts; there is one set per request
// (per `ctx.loaders`).
import DataLoader from "dataloader";
import { Prisma, type Comment, type CommentReaction, type PrismaClient } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { byId, groupedBy } from "../loader-kit.ts";
import { ScopeSlot } from "../request-scope.ts";

/** A user who replied to a comment: how many replies, and when the last one was posted. */
export interface Replier {
  userId: string;
  count: number;
  updatedAt: Date;
}

function createCommentLoaders(prisma: PrismaClient) {
  /** Comments and replies by id (one table). */
  const comment = byId<Comment>((ids) => prisma.comment.findMany({ where: { id: { in: ids } } }));

  /** Reactions of each comment or reply, oldest first. */
  const reactions = groupedBy<CommentReaction>(
    (row) => [row.commentId],
    (commentIds) =>
      prisma.commentReaction.findMany({
        where: { commentId: { in: commentIds } },
        orderBy: [{ reactedAt: "asc" }, { userId: "asc" }, { emoji: "asc" }],
      }),
  );

  const replyCount = new DataLoader<string, number>(async (commentIds) => {
    const rows = await prisma.comment.groupBy({ by: ["parentId"], where: { parentId: { in: [...commentIds] } }, _count: { _all: true } });
    const found = new Map(rows.map((row) => [row.parentId!, row._count._all]));
    return commentIds.map((id) => found.get(id) ?? 0);
  });

  /** Who replied to each comment, in the order of their last reply. */
  const repliers = new DataLoader<string, Replier[]>(async (commentIds) => {
    const rows = await prisma.comment.groupBy({
      by: ["parentId", "postedById"],
      where: { parentId: { in: [...commentIds] } },
      _count: { _all: true },
      _max: { postedAt: true },
    });
    const groups = new Map<string, Replier[]>(commentIds.map((id) => [id, []]));
    for (const row of rows)
      groups.get(row.parentId!)!.push({ userId: row.postedById, count: row._count._all, updatedAt: row._max.postedAt! });
    for (const list of groups.values())
      list.sort((a, b) => a.updatedAt.getTime() - b.updatedAt.getTime() || a.userId.localeCompare(b.userId));
    return commentIds.map((id) => groups.get(id)!);
  });

  const firstRepliesByTake = new Map<number, DataLoader<string, Comment[]>>();

  /**
   * The first `take` replies of each comment (by postedAt, then id), for the first page of
   * `Comment.replies`: the ids for every asked comment in one windowed statement, the rows in one more.
   */
  function firstReplies(take: number): DataLoader<string, Comment[]> {
    let loader = firstRepliesByTake.get(take);
    if (!loader) {
      loader = new DataLoader<string, Comment[]>(async (commentIds) => {
        const ranked = await prisma.$queryRaw<{ id: string }[]>(Prisma.sql`
          SELECT id FROM (
            SELECT id, "parentId", row_number() OVER (PARTITION BY "parentId" ORDER BY "postedAt", id) AS position
            FROM "Comment" WHERE "parentId" = ANY(${[...commentIds]}::text[])
          ) ranked
          WHERE position <= ${take}
          ORDER BY "parentId", position`);
        const rows = await comment.loadMany(ranked.map((row) => row.id));
        const groups = new Map<string, Comment[]>(commentIds.map((id) => [id, []]));
        for (const row of rows) if (row && !(row instanceof Error)) groups.get(row.parentId!)!.push(row);
        return commentIds.map((id) => groups.get(id)!);
      });
      firstRepliesByTake.set(take, loader);
    }
    return loader;
  }

  /** Drops what the loaders hold of comments that just changed (rows, reactions, replies). */
  function forget(ids: string[]): void {
    for (const id of ids) {
      for (const loader of [comment, reactions, replyCount, repliers, ...firstRepliesByTake.values()]) loader.clear(id);
    }
  }

  return { comment, reactions, replyCount, repliers, firstReplies, forget };
}

export type CommentLoaders = ReturnType<typeof createCommentLoaders>;

const COMMENT_LOADERS = new ScopeSlot("comment loaders", createCommentLoaders);

/** The comment loaders of this request. */
export const commentLoaders = (ctx: CoreContext): CommentLoaders => ctx.scope.get(COMMENT_LOADERS, ctx.prisma);
