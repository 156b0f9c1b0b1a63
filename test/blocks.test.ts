// The one model of GitBook's Markdown blocks (src/core/content/blocks): hand-written samples of
// each block in GitBook's syntax, what the parser makes of them, and the byte-identical round trip.
import { describe, expect, it } from "vitest";
import { type Block, parseBlocks, toMarkdown, withoutTitleHeading } from "../src/core/content/blocks/index.ts";

/** The blocks without their `raw` (what the tests compare by hand). */
function shape(blocks: Block[]): unknown[] {
  return blocks.map((block) => {
    const { raw: _raw, ...rest } = block;
    if ("children" in rest) return { ...rest, children: shape(rest.children as Block[]) };
    if (rest.type === "tabs") return { ...rest, tabs: rest.tabs.map((tab) => ({ ...tab, children: shape(tab.children) })) };
    return rest;
  });
}

const EVERY_BLOCK = `---
description: Every block GitBook's Markdown carries.
icon: book
layout:
  title:
    visible: true
---

# Every block

Some *text* with \`code\` and $$x^2$$ inline.

{% hint style="warning" %}
Careful: **this** matters.
{% endhint %}

> [!TIP]
> A GitHub alert,
> on two lines.

{% tabs %}
{% tab title="JavaScript" %}
\`\`\`js
console.log("hi");
\`\`\`
{% endtab %}

{% tab title="Python" %}
\`\`\`python
print("hi")
\`\`\`
{% endtab %}
{% endtabs %}

{% code title="server.ts" lineNumbers="true" %}
\`\`\`typescript
const a = 1;
const b = 2;
\`\`\`
{% endcode %}

<details>

<summary>More details</summary>

Hidden *text*.

</details>

{% embed url="https://www.youtube.com/watch?v=abc" %}
A caption
{% endembed %}

{% embed url="https://example.com" %}

{% content-ref url="other.md" %}
[other.md](other.md)
{% endcontent-ref %}

{% file src=".gitbook/assets/guide.pdf" %}
The guide
{% endfile %}

{% openapi src="https://petstore3.swagger.io/api/v3/openapi.json" path="/pet" method="post" %}
[https://petstore3.swagger.io/api/v3/openapi.json](https://petstore3.swagger.io/api/v3/openapi.json)
{% endopenapi %}

<table data-view="cards"><thead><tr><th></th><th></th><th data-hidden data-card-target data-type="content-ref"></th></tr></thead><tbody><tr><td><strong>Start</strong></td><td>First steps</td><td><a href="start.md">start.md</a></td></tr></tbody></table>

$$
E = mc^2
$$

- [x] done
- [ ] to do

{% stepper %}
{% step %}
First step
{% endstep %}
{% endstepper %}
`;

describe("parseBlocks", () => {
  it("cuts every GitBook block out of a page, and gives the page back byte for byte", () => {
    const blocks = parseBlocks(EVERY_BLOCK);
    expect(toMarkdown(blocks)).toBe(EVERY_BLOCK);
    expect(blocks.map((b) => b.type)).toEqual([
      "front-matter",
      "markdown",
      "hint",
      "markdown",
      "hint",
      "markdown",
      "tabs",
      "markdown",
      "code",
      "markdown",
      "details",
      "markdown",
      "embed",
      "markdown",
      "embed",
      "markdown",
      "content-ref",
      "markdown",
      "file",
      "markdown",
      "openapi",
      "markdown",
      "cards",
      "markdown",
      "math",
      "markdown",
      "unknown",
    ]);
    const [
      front,
      ,
      hint,
      ,
      alert,
      ,
      tabs,
      ,
      code,
      ,
      details,
      ,
      embed,
      ,
      bareEmbed,
      ,
      ref,
      ,
      file,
      ,
      openapi,
      ,
      cards,
      ,
      math,
      tasks,
      stepper,
    ] = shape(blocks);
    expect(front).toEqual({
      type: "front-matter",
      yaml: "description: Every block GitBook's Markdown carries.\nicon: book\nlayout:\n  title:\n    visible: true\n",
      data: { description: "Every block GitBook's Markdown carries.", icon: "book", layout: { title: { visible: true } } },
      description: "Every block GitBook's Markdown carries.",
      icon: "book",
      layout: { title: { visible: true } },
    });
    expect(hint).toEqual({
      type: "hint",
      style: "warning",
      syntax: "liquid",
      children: [{ type: "markdown", markdown: "Careful: **this** matters.\n" }],
    });
    expect(alert).toEqual({
      type: "hint",
      style: "success",
      syntax: "alert",
      alert: "TIP",
      children: [{ type: "markdown", markdown: "A GitHub alert,\non two lines.\n" }],
    });
    expect(tabs).toEqual({
      type: "tabs",
      tabs: [
        { title: "JavaScript", children: [{ type: "markdown", markdown: '```js\nconsole.log("hi");\n```\n' }] },
        { title: "Python", children: [{ type: "markdown", markdown: '```python\nprint("hi")\n```\n' }] },
      ],
    });
    expect(code).toEqual({
      type: "code",
      title: "server.ts",
      lineNumbers: true,
      language: "typescript",
      code: "const a = 1;\nconst b = 2;",
    });
    expect(details).toEqual({
      type: "details",
      summary: "More details",
      open: false,
      children: [{ type: "markdown", markdown: "\nHidden *text*.\n\n" }],
    });
    expect(embed).toEqual({ type: "embed", url: "https://www.youtube.com/watch?v=abc", caption: "A caption" });
    expect(bareEmbed).toEqual({ type: "embed", url: "https://example.com", caption: "" });
    expect(ref).toEqual({ type: "content-ref", url: "other.md", children: [{ type: "markdown", markdown: "[other.md](other.md)\n" }] });
    expect(file).toEqual({ type: "file", src: ".gitbook/assets/guide.pdf", caption: "The guide" });
    expect(openapi).toEqual({
      type: "openapi",
      tag: "openapi",
      attributes: { src: "https://petstore3.swagger.io/api/v3/openapi.json", path: "/pet", method: "post" },
      src: "https://petstore3.swagger.io/api/v3/openapi.json",
      path: "/pet",
      method: "post",
      body: "[https://petstore3.swagger.io/api/v3/openapi.json](https://petstore3.swagger.io/api/v3/openapi.json)\n",
    });
    expect(cards).toEqual({
      type: "cards",
      columns: [
        { title: "", kind: "text", hidden: false },
        { title: "", kind: "text", hidden: false },
        { title: "", kind: "target", hidden: true },
      ],
      cards: [{ cells: [{ text: "Start" }, { text: "First steps" }, { text: "start.md", href: "start.md" }] }],
    });
    expect(math).toEqual({ type: "math", tex: "E = mc^2" });
    expect(tasks).toEqual({ type: "markdown", markdown: "\n- [x] done\n- [ ] to do\n\n" });
    expect(stepper).toEqual({
      type: "unknown",
      name: "stepper",
      attributes: {},
      children: [{ type: "unknown", name: "step", attributes: {}, children: [{ type: "markdown", markdown: "First step\n" }] }],
    });
  });

  it("leaves tags inside fenced code, unclosed containers and mid-paragraph alerts as Markdown", () => {
    const samples = [
      '```liquid\n{% hint style="info" %}\nnot a hint\n{% endhint %}\n```\n',
      '{% hint style="info" %}\nnever closed\n',
      "A paragraph\n> [!NOTE]\n> quoted\n",
      "{% endhint %}\n",
      "",
      "no trailing newline",
      'crlf\r\n{% hint style="danger" %}\r\nx\r\n{% endhint %}\r\n',
    ];
    for (const sample of samples) expect(toMarkdown(parseBlocks(sample))).toBe(sample);
    expect(parseBlocks(samples[0]).map((b) => b.type)).toEqual(["markdown"]);
    expect(parseBlocks(samples[1]).map((b) => b.type)).toEqual(["markdown"]);
    expect(parseBlocks(samples[2]).map((b) => b.type)).toEqual(["markdown"]);
    expect(shape(parseBlocks(samples[6]))[1]).toEqual({
      type: "hint",
      style: "danger",
      syntax: "liquid",
      children: [{ type: "markdown", markdown: "x\r\n" }],
    });
  });

  it("nests containers (a hint in a tab in an expandable), and bounds the depth", () => {
    const nested =
      '<details open>\n<summary>S</summary>\n\n{% tabs %}\n{% tab title="T" %}\n{% hint style="success" %}\nOK\n{% endhint %}\n{% endtab %}\n{% endtabs %}\n</details>\n';
    const [details] = shape(parseBlocks(nested)) as [Record<string, unknown>];
    expect(details).toEqual({
      type: "details",
      summary: "S",
      open: true,
      children: [
        { type: "markdown", markdown: "\n" },
        {
          type: "tabs",
          tabs: [
            {
              title: "T",
              children: [{ type: "hint", style: "success", syntax: "liquid", children: [{ type: "markdown", markdown: "OK\n" }] }],
            },
          ],
        },
      ],
    });
    const deep = `${'{% hint style="info" %}\n'.repeat(200)}core\n${"{% endhint %}\n".repeat(200)}`;
    const started = performance.now();
    expect(toMarkdown(parseBlocks(deep))).toBe(deep);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("writes GitBook's syntax for blocks built in code", () => {
    const built: Block[] = [
      { type: "hint", style: "info", syntax: "liquid", children: [{ type: "markdown", markdown: "Hi" }] },
      { type: "hint", style: "danger", syntax: "alert", alert: "CAUTION", children: [{ type: "markdown", markdown: "A\n\nB\n" }] },
      { type: "code", title: "a.js", lineNumbers: true, language: "js", code: "x()" },
      { type: "embed", url: "https://example.com", caption: "" },
      { type: "math", tex: "a+b" },
    ];
    expect(toMarkdown(built)).toBe(
      '{% hint style="info" %}\nHi\n{% endhint %}\n> [!CAUTION]\n> A\n>\n> B\n{% code title="a.js" lineNumbers="true" %}\n```js\nx()\n```\n{% endcode %}\n{% embed url="https://example.com" %}\n$$\na+b\n$$\n',
    );
    // What it writes parses back to the same blocks.
    expect(shape(parseBlocks(toMarkdown(built.slice(0, 3))))).toEqual([
      { type: "hint", style: "info", syntax: "liquid", children: [{ type: "markdown", markdown: "Hi\n" }] },
      { type: "hint", style: "danger", syntax: "alert", alert: "CAUTION", children: [{ type: "markdown", markdown: "A\n\nB\n" }] },
      { type: "code", title: "a.js", lineNumbers: true, language: "js", code: "x()" },
    ]);
  });
});

describe("withoutTitleHeading", () => {
  it("drops a leading level-1 heading equal to the title, and nothing else", () => {
    expect(withoutTitleHeading("# Quick start\n\nText\n", "Quick start")).toBe("Text\n");
    expect(withoutTitleHeading("---\nicon: x\n---\n\n# Quick *start*\nText\n", "quick start")).toBe("---\nicon: x\n---\n\nText\n");
    expect(withoutTitleHeading("Quick start\n===\n\nText\n", "Quick start")).toBe("Text\n");
    expect(withoutTitleHeading("# Another title\n\nText\n", "Quick start")).toBe("# Another title\n\nText\n");
    expect(withoutTitleHeading("Intro\n\n# Quick start\n", "Quick start")).toBe("Intro\n\n# Quick start\n");
    expect(withoutTitleHeading("## Quick start\n", "Quick start")).toBe("## Quick start\n");
  });
});
