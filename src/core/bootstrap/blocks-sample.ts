// The sample page that shows every block of GitBook's Markdown a published site renders, so that
// a first start has one page where a newcomer sees them all (and the browser tests look at it).

/** The page's Markdown; `fileId` is a file of the space (the file block downloads it). */
export const blocksMarkdown = (fileId: string) => `# Blocks

Everything a page can hold, as a published site shows it. Inline \`code\`, **bold**, _emphasis_,
[links](quickstart) and math such as $$e^{i\\pi} + 1 = 0$$ sit inside paragraphs.

## Hints

{% hint style="info" %}
**Info.** Hints call out what a reader should not miss.
{% endhint %}

{% hint style="success" %}
Your first page is published.
{% endhint %}

{% hint style="warning" %}
Tokens are shown once: keep yours somewhere safe.
{% endhint %}

{% hint style="danger" %}
Deleting a space removes its pages after seven days.
{% endhint %}

> [!NOTE]
> GitHub-style alerts render as hints too.

## Tabs

{% tabs %}
{% tab title="GraphQL" %}
\`\`\`graphql
query { organizations { nodes { id title } } }
\`\`\`
{% endtab %}

{% tab title="REST" %}
\`\`\`bash
curl -H "Authorization: Bearer $TOKEN" http://localhost:4000/v1/orgs
\`\`\`
{% endtab %}

{% tab title="JavaScript" %}
\`\`\`javascript
const response = await fetch("/v1/orgs", { headers: { Authorization: \`Bearer \${token}\` } });
console.log(await response.json());
\`\`\`
{% endtab %}
{% endtabs %}

## Code

{% code title="server.ts" lineNumbers="true" %}
\`\`\`typescript
import { createServer } from "node:http";

// A server that answers every request with a greeting that names the path it was asked for.
const port = 4000;
createServer((request, response) => response.end(\`Hello from \${request.url}\`)).listen(port);
\`\`\`
{% endcode %}

\`\`\`json
{ "title": "Getting started", "visibility": "public", "tags": ["guide", "sample"] }
\`\`\`

## Expandable

<details>

<summary>What happens when I merge a change request?</summary>

Its pages become the space's: a three-way merge against the common base, refused with the list of
conflicting pages when both sides changed the same lines.

</details>

## Cards

<table data-view="cards"><thead><tr><th></th><th></th><th data-hidden data-card-target data-type="content-ref"></th></tr></thead><tbody><tr><td><strong>Quickstart</strong></td><td>Your first page in five minutes.</td><td><a href="quickstart.md">quickstart.md</a></td></tr><tr><td><strong>API</strong></td><td>Every endpoint, in a table.</td><td><a href="reference/api.md">api.md</a></td></tr><tr><td><strong>Welcome</strong></td><td>What this space holds.</td><td><a href="welcome.md">welcome.md</a></td></tr></tbody></table>

## Embed

{% embed url="https://www.youtube.com/watch?v=dQw4w9WgXcQ" %}
A video, shown as a link card: a published page loads nothing from other sites.
{% endembed %}

## File

{% file src="files/${fileId}" %}
The architecture diagram
{% endfile %}

## Content reference

{% content-ref url="reference/api.md" %}
[api.md](reference/api.md)
{% endcontent-ref %}

## Math

$$
\\int_0^\\infty e^{-x^2}\\,dx = \\frac{\\sqrt{\\pi}}{2}
$$

## Table

| Block | Markdown | Works without JavaScript |
| --- | --- | --- |
| Hint | \`{% hint style="info" %}\` | Yes |
| Tabs | \`{% tabs %}\` | Yes |
| Expandable | \`<details>\` | Yes |

## Task list

- [x] Write the page
- [x] Publish the site
- [ ] Ask a colleague to read it

## Diagram

\`\`\`mermaid
graph LR
  Editor --> Revision --> Site
\`\`\`
`;
