// The repository's conventions: the Node version of .nvmrc satisfies `engines` (and the running
// Node does), the scripts a contributor expects exist, the README and docs/ stand alone (every
// file they link exists in the repository, nothing points outside it), and the
// LICENSE, CHANGELOG and CONTRIBUTING files are there.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const read = (file: string) => readFileSync(`${ROOT}${file}`, "utf8");
const packageJson = JSON.parse(read("package.json"));

/** [major, minor, patch] of a version like "20", "v20.19" or "20.19.0". */
const versionOf = (text: string) => {
  const [major = 0, minor = 0, patch = 0] = text.replace(/^v/, "").split(".").map(Number);
  return [major, minor, patch];
};
const atLeast = (version: number[], minimum: number[]) => {
  for (let i = 0; i < 3; i++) if (version[i] !== minimum[i]) return version[i] > minimum[i];
  return true;
};

describe("conventions", () => {
  it(".nvmrc names the target Node, which engines accepts; this Node satisfies engines", () => {
    const engines: string = packageJson.engines.node;
    const minimum = versionOf(engines.match(/^>=\s*([\d.]+)$/)![1]);
    const nvmrc = read(".nvmrc").trim();
    expect(nvmrc).toMatch(/^\d+(\.\d+){0,2}$/);
    // The target runtime is Node 24 LTS (issue 35): .nvmrc and the Dockerfile name it; engines
    // keeps the oldest Node the service still starts on (20.19), so a machine with Node 20 runs it.
    expect(nvmrc).toBe("24");
    expect(atLeast(versionOf(nvmrc), minimum)).toBe(true);
    expect(minimum[0]).toBe(20);
    expect(atLeast(versionOf(process.version), minimum)).toBe(true);
  });

  it("has the scripts of the README: build, start on compiled JavaScript, dev, lint, format", () => {
    const { scripts } = packageJson;
    expect(scripts.start).toMatch(/^exec node dist\//);
    expect(scripts.prestart).toBe("npm run -s build");
    expect(scripts.build).toMatch(/^tsc -p tsconfig\.build\.json/);
    expect(scripts.dev).toMatch(/watch/);
    expect(scripts.lint).toMatch(/^biome lint/);
    expect(scripts.format).toMatch(/^biome format/);
  });

  it("has LICENSE (MIT, as package.json says), CHANGELOG.md and CONTRIBUTING.md", () => {
    expect(read("LICENSE")).toMatch(/^MIT License/);
    expect(packageJson.license).toBe("MIT");
    expect(read("CHANGELOG.md")).toMatch(/^# Changelog[\s\S]*## \[Unreleased\]/);
    expect(read("CONTRIBUTING.md")).toMatch(/^# Contributing/);
  });

  it("the README and docs/ are self-contained: files they link exist in the repository, none outside it", () => {
    const pages = [
      "README.md",
      ...readdirSync(`${ROOT}docs`, { recursive: true, encoding: "utf8" })
        .filter((file) => file.endsWith(".md"))
        .map((file) => `docs/${file}`),
    ];
    for (const page of pages) {
      const text = read(page);
      const dir = dirname(`${ROOT}${page}`);
      // Markdown links to files (not to the web or to anchors), relative to the page.
      const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)]
        .map((match) => match[1])
        .filter((target) => !/^(https?:|mailto:|#)/.test(target));
      for (const link of links) expect(existsSync(resolve(dir, link.split("#")[0])), `${page}: ${link}`).toBe(true);
      // File names in code spans that leave the repository.
      expect(text, page).not.toMatch(/`\.\.\/[^`]*\.(md|ts|json|yaml)`/);
      expect(text, page).not.toMatch(/\/work\/|shared\/api|DESIGN\.md/);
    }
    const readme = read("README.md");
    for (const file of ["CONTRIBUTING.md", "CHANGELOG.md", "LICENSE"]) {
      expect(readme).toContain(`\`${file}\``);
      expect(existsSync(`${ROOT}${file}`)).toBe(true);
    }
  });
});
