// The pure parts of integration blocks: the embed's body (YAML mapping → the published block, or
// null to stay a code block), ContentKit → HTML (escaping, URLs kept only when http(s), state
// bindings, unknown elements reported once, nesting bounded) and Content-Security-Policy values.
import { describe, expect, it } from "vitest";
import { integrationDocumentBlock, parseIntegrationEmbed } from "../src/core/integrations/embed.ts";
import { contentKitProblem } from "../src/core/integrations/contentkit.ts";
import { contentSecurityPolicyHeader, mergeContentSecurityPolicies } from "../src/core/integrations/csp.ts";
import { contentKitHtml } from "../src/core/sites/contentkit-html.ts";

describe("the integration embed", () => {
  it("reads integration, block, props and the optional keys", () => {
    expect(parseIntegrationEmbed("integration: hello\nblock: hello-button\nprops:\n  label: docs\n")).toEqual({
      integration: "hello",
      block: "hello-button",
      props: { label: "docs" },
    });
    expect(parseIntegrationEmbed('integration: a.b_c\nblock: "x y"\nurl: https://e.com\nfullWidth: false')).toEqual({
      integration: "a.b_c",
      block: "x y",
      props: {},
      url: "https://e.com",
      fullWidth: false,
    });
    expect(integrationDocumentBlock({ integration: "a", block: "b", props: { n: 1 } })).toEqual({
      object: "block",
      type: "integration",
      isVoid: true,
      data: { integration: "a", block: "b", props: { n: 1 } },
    });
  });

  it("is no embed (null: a code block) when incomplete, malformed, or with other keys", () => {
    for (const body of [
      "block: b",
      "integration: a",
      "integration: bad name!\nblock: b",
      "integration: a\nblock: b\nprops: [1, 2]",
      "integration: a\nblock: b\nprops: text",
      "integration: a\nblock: b\nother: 1",
      "integration: a\nblock: b\nfullWidth: yes please",
      "integration: a\nintegration: b\nblock: c",
      "x: &anchor [1]\nintegration: a\nblock: b\nprops: { y: *anchor }",
      "just text",
      "integration: [unclosed",
      `integration: a\nblock: b\nprops: { big: "${"x".repeat(20_000)}" }`,
    ]) {
      expect(parseIntegrationEmbed(body), body.slice(0, 60)).toBeNull();
    }
  });
});

describe("ContentKit → HTML", () => {
  it("escapes text and attributes and keeps only http(s) URLs", () => {
    const html = contentKitHtml({
      type: "block",
      children: [
        { type: "text", children: ['<img src=x onerror="alert(1)">', { type: "text", style: "italic", children: "&" }] },
        { type: "button", label: '"quoted"', tooltip: "<tip>", onPress: { action: "@ui.url.open", url: "javascript:alert(1)" } },
        { type: "link", target: { url: "data:text/html,<script>" }, children: ["plain"] },
        { type: "link", target: { url: { host: "example.com", pathname: "/a b", query: { q: "1&2" } } }, children: "ok" },
        { type: "image", source: { url: 'https://e.com/"x.png' }, aspectRatio: 2 },
        { type: "codeblock", content: "</code><script>", syntax: 'js" onload="x' },
      ],
    });
    expect(html).toBe(
      '<div class="ck-block"><span class="ck-text">&lt;img src=x onerror=&quot;alert(1)&quot;&gt;<em>&amp;</em></span>' +
        '<button type="button" class="ck-button ck-button-primary" disabled title="&lt;tip&gt;">&quot;quoted&quot;</button>' +
        "plain" +
        '<a class="ck-link" href="https://example.com/a%20b?q=1%262" rel="noopener noreferrer nofollow">ok</a>' +
        '<img class="ck-image" src="https://e.com/%22x.png" alt="" style="aspect-ratio:2" loading="lazy">' +
        '<div class="ck-codeblock"><pre><code class="language-js&quot; onload=&quot;x">&lt;/code&gt;&lt;script&gt;</code></pre></div></div>',
    );
  });

  it("reads state bindings, renders markdown with raw HTML escaped, reports an unknown element once", () => {
    const logs: string[] = [];
    const html = contentKitHtml(
      {
        type: "block",
        children: [
          { type: "markdown", content: { $state: "body" } },
          { type: "markdown", content: "<b>raw</b> and *soft*" },
          { type: "select", state: "x", options: [] },
          { type: "select", state: "y", options: [] },
          { type: "webframe", source: { url: "https://e.com/frame" } },
        ],
      },
      { state: { body: "**bound**" }, log: (message) => logs.push(message) },
    );
    expect(html).toBe(
      '<div class="ck-block"><div class="ck-markdown"><p><strong>bound</strong></p>\n</div>' +
        '<div class="ck-markdown"><p>&lt;b&gt;raw&lt;/b&gt; and <em>soft</em></p>\n</div>' +
        '<p class="ck-webframe"><a href="https://e.com/frame" rel="noopener noreferrer nofollow">https://e.com/frame</a></p></div>',
    );
    expect(logs).toEqual(['ContentKit element "select" is not rendered on published pages']);
  });

  it("stops at a bounded depth; the ContentKit check refuses deeper answers instead of overflowing the stack", () => {
    let element: Record<string, unknown> = { type: "text", children: "deep" };
    for (let i = 0; i < 10_000; i++) element = { type: "box", children: [element] };
    expect(contentKitProblem({ type: "element", element: { type: "block", children: [element] }, state: {}, props: {} })).toBe(
      "/ is nested deeper than 100 levels",
    );
    const html = contentKitHtml({ type: "block", children: [element] });
    expect(html).not.toContain("deep");
    expect(html.match(/<div class="ck-box">/g)?.length).toBe(32);
  });
});

describe("Content-Security-Policy of an integration", () => {
  it("is a string as is, or its directives joined; control characters cannot split the header", () => {
    expect(contentSecurityPolicyHeader("script-src 'self'")).toBe("script-src 'self'");
    expect(contentSecurityPolicyHeader({ "script-src": "https://a.com", "upgrade-insecure-requests": "", "Bad Key": "x" })).toBe(
      "script-src https://a.com; upgrade-insecure-requests",
    );
    expect(contentSecurityPolicyHeader("a\r\nSet-Cookie: x")).toBe("a Set-Cookie: x");
    expect(contentSecurityPolicyHeader(null)).toBeNull();
    expect(contentSecurityPolicyHeader({})).toBeNull();
    expect(contentSecurityPolicyHeader(42)).toBeNull();
  });

  it("widens a published page's fetch directives, never its script directives beyond host sources, nor its other directives", () => {
    const page =
      "default-src 'none'; img-src 'self' https: data:; style-src 'unsafe-inline'; frame-ancestors 'none'; script-src https://s/a.js";
    const merged = mergeContentSecurityPolicies(page, [
      "connect-src https://api.example.com; img-src https://img.example.com; frame-ancestors *; base-uri https://evil.example",
      "script-src https://cdn.example.com 'unsafe-inline' 'strict-dynamic' 'nonce-x' https: * data:; default-src https://d.example.com",
      null,
    ]);
    const directives = Object.fromEntries(merged.split("; ").map((part) => [part.split(" ")[0], part.split(" ").slice(1).join(" ")]));
    expect(directives).toEqual({
      "default-src": "https://d.example.com",
      "img-src": "'self' https: data: https://img.example.com",
      "style-src": "'unsafe-inline'",
      "frame-ancestors": "'none'",
      "script-src": "https://s/a.js https://cdn.example.com",
      "connect-src": "https://api.example.com",
    });
    // Nothing to merge: the page's policy as it was.
    expect(mergeContentSecurityPolicies(page, [null, "sandbox; report-uri /x"])).toBe(page);
  });
});
