// The look of published pages: one stylesheet and one small script, served as hashed assets
// (assets.ts), and the inline line that applies a reader's stored theme before the page paints.
// Pages read without JavaScript: the menu is a checkbox, tabs are radio buttons, expandables are
// <details>; the script only adds the theme toggle, copy buttons and the outline's current heading.
//
// Themes: <html data-theme="light|dark|system"> (the site's customization; `system` follows the
// reader's preference); a reader's choice (when the site allows toggling, `data-toggle`) is kept
// in localStorage under `site-theme`. Code colors come per page as `.kN{--l:…;--d:…}` classes.

const DARK_VARS =
  "color-scheme:dark;--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--border:#3d444d;--soft:#151b23;--code-bg:#0d1117;--link:var(--link-dark);--tint:12%";

const TAB_RULES = Array.from({ length: 12 }, (_, i) => `.tabset>input:nth-of-type(${i + 1}):checked~.tab-panel:nth-of-type(${i + 1})`).join(
  ",",
);

export const SITE_CSS = `:root{color-scheme:light;--bg:#fff;--fg:#1f2328;--muted:#59636e;--border:#d1d9e0;--soft:#f6f8fa;--code-bg:#fff;--link:var(--link-light);--tint:8%;--header:3.5rem;--info:#346ddb;--success:#1a7f37;--warning:#bf6a02;--danger:#cf222e}
:root[data-theme=dark]{${DARK_VARS}}
@media (prefers-color-scheme:dark){:root[data-theme=system]{${DARK_VARS}}}
*,*::before,*::after{box-sizing:border-box}
html{scroll-padding-top:calc(var(--header) + 1rem)}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.65 var(--font),system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;-webkit-text-size-adjust:100%}
a{color:var(--link)}a:hover{text-decoration-thickness:2px}
:focus-visible{outline:2px solid var(--link);outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;z-index:20;background:var(--bg);padding:.5rem 1rem}.skip:focus{left:.5rem}
.menu-toggle{display:none}
header.top{position:sticky;top:0;z-index:10;display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.25rem;min-height:var(--header);padding:.5rem 1.5rem;background:var(--bg);border-bottom:1px solid var(--border);border-top:3px solid var(--primary)}
header.top .title{display:flex;align-items:center;gap:.5rem;font-weight:650;font-size:1.05rem;color:var(--fg);text-decoration:none;min-width:0}
header.top .title img{height:1.75rem;width:auto}
header.theme-bold,header.theme-gradient{background:var(--primary)}header.theme-bold a,header.theme-gradient a,header.theme-bold .title,header.theme-gradient .title{color:#fff}
nav.tabs,nav.variants,nav.links{display:flex;gap:1rem;min-width:0;overflow-x:auto;white-space:nowrap}
nav.tabs a,nav.variants a,nav.links a{color:var(--muted);text-decoration:none;padding:.25rem 0}nav.tabs a[aria-current],nav.variants a[aria-current]{color:var(--fg);font-weight:600;box-shadow:inset 0 -2px var(--primary)}
form.search{margin-left:auto;min-width:0}form.search input{width:14rem;max-width:100%;font:inherit;font-size:.9rem;padding:.35rem .75rem;border:1px solid var(--border);border-radius:999px;background:var(--soft);color:var(--fg)}
.menu-button,.theme-toggle{display:none;align-items:center;gap:.35rem;font:inherit;font-size:.9rem;color:var(--fg);background:var(--soft);border:1px solid var(--border);border-radius:6px;padding:.3rem .65rem;cursor:pointer}
.theme-toggle:not([hidden]){display:inline-flex}
.menu-toggle:focus-visible~header .menu-button{outline:2px solid var(--link);outline-offset:2px}
.layout{display:grid;grid-template-columns:16rem minmax(0,1fr) 15rem;gap:2.5rem;max-width:88rem;margin:0 auto;padding:0 1.5rem}
nav.pages{position:sticky;top:calc(var(--header) + 3px);align-self:start;max-height:calc(100vh - var(--header) - 3px);overflow-y:auto;padding:1.5rem 0;font-size:.92rem}
nav.pages ul{list-style:none;margin:0;padding:0}nav.pages ul ul{padding-left:.85rem;border-left:1px solid var(--border);margin-left:.5rem}
nav.pages a{display:block;padding:.3rem .6rem;border-radius:6px;color:var(--muted);text-decoration:none}nav.pages a:hover{background:var(--soft);color:var(--fg)}
nav.pages a[aria-current]{color:var(--link);background:var(--soft);font-weight:600}
nav.pages .group>span{display:block;margin:1rem 0 .25rem;padding:0 .6rem;font-size:.75rem;font-weight:700;letter-spacing:.04em;text-transform:uppercase;color:var(--muted)}
main{min-width:0;max-width:46rem;padding:1.5rem 0 3rem;overflow-wrap:break-word}
.breadcrumbs ol{display:flex;flex-wrap:wrap;gap:.25rem;list-style:none;margin:0 0 .5rem;padding:0;font-size:.85rem;color:var(--muted)}.breadcrumbs li+li::before{content:"›";margin-right:.25rem}.breadcrumbs a{color:var(--muted)}
article h1{font-size:2.1rem;line-height:1.25;margin:0 0 .5rem}article h2{font-size:1.45rem;margin:2.2rem 0 .6rem;line-height:1.3}article h3{font-size:1.15rem;margin:1.6rem 0 .4rem}
.description{color:var(--muted);font-size:1.1rem;margin-top:0}
img{max-width:100%;height:auto}hr{border:0;border-top:1px solid var(--border)}
blockquote{margin:1rem 0;padding:0 1rem;border-left:3px solid var(--border);color:var(--muted)}
:not(pre)>code{font:.875em/1.4 var(--mono),ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--soft);border:1px solid var(--border);border-radius:5px;padding:.1em .35em}
.table-scroll{overflow-x:auto;margin:1rem 0;border:1px solid var(--border);border-radius:8px}
table{border-collapse:collapse;min-width:100%;font-size:.93rem}th,td{padding:.5rem .75rem;border-bottom:1px solid var(--border);text-align:left;vertical-align:top}th{background:var(--soft)}tr:last-child td{border-bottom:0}
ul.task,li.task{list-style:none}li.task input{margin:0 .4rem 0 -1.3rem}
figure.code{position:relative;margin:1rem 0;border:1px solid var(--border);border-radius:8px;background:var(--code-bg);overflow:hidden}
figure.code figcaption{padding:.4rem .9rem;font-size:.85rem;color:var(--muted);border-bottom:1px solid var(--border);background:var(--soft)}
figure.code pre{margin:0;padding:.85rem 1rem;overflow-x:auto;font:.875rem/1.6 var(--mono),ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;tab-size:2}
figure.code.wrap pre{white-space:pre-wrap;overflow-wrap:anywhere}
figure.code.numbered code{counter-reset:line}figure.code.numbered .line::before{counter-increment:line;content:counter(line);display:inline-block;width:2.2em;margin-right:1em;text-align:right;color:var(--muted);user-select:none}
.code [class^=k]{color:var(--l)}:root[data-theme=dark] .code [class^=k]{color:var(--d)}
@media (prefers-color-scheme:dark){:root[data-theme=system] .code [class^=k]{color:var(--d)}}
button.copy{position:absolute;top:.4rem;right:.4rem;font:inherit;font-size:.75rem;padding:.15rem .5rem;border:1px solid var(--border);border-radius:5px;background:var(--bg);color:var(--fg);cursor:pointer;opacity:.85}
.hint{--c:var(--info);margin:1rem 0;padding:.75rem 1rem;border:1px solid color-mix(in srgb,var(--c) 35%,var(--bg));border-left:4px solid var(--c);border-radius:8px;background:color-mix(in srgb,var(--c) var(--tint),var(--bg))}
.hint-success{--c:var(--success)}.hint-warning{--c:var(--warning)}.hint-danger{--c:var(--danger)}
.hint>.hint-label{margin:0 0 .25rem;font-weight:650}.hint>.hint-label+*{margin-top:0}.hint>.hint-label::before{content:"ℹ";display:inline-block;width:1.3em;color:var(--c)}
.hint-success>.hint-label::before{content:"✓"}.hint-warning>.hint-label::before{content:"⚠"}.hint-danger>.hint-label::before{content:"✕"}
.hint>:last-child,.expandable-body>:last-child,.tab-panel>:last-child{margin-bottom:0}
.tabset{margin:1rem 0;border:1px solid var(--border);border-radius:8px;overflow:hidden}
.tabset>input{position:absolute;opacity:0;width:1px;height:1px;margin:0}
.tabset>label{display:inline-block;padding:.5rem 1rem;font-size:.9rem;font-weight:550;color:var(--muted);cursor:pointer;border-bottom:2px solid transparent}
.tabset>input:checked+label{color:var(--fg);border-bottom-color:var(--primary)}.tabset>input:focus-visible+label{outline:2px solid var(--link);outline-offset:-2px}
.tab-panel{display:none;padding:.25rem 1rem .75rem;border-top:1px solid var(--border)}${TAB_RULES}{display:block}
details.expandable{margin:1rem 0;border:1px solid var(--border);border-radius:8px}details.expandable>summary{padding:.6rem 1rem;cursor:pointer;font-weight:550}
.expandable-body{padding:0 1rem .75rem}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(13rem,1fr));gap:.75rem;margin:1rem 0}
.card{display:flex;flex-direction:column;gap:.25rem;padding:1rem;border:1px solid var(--border);border-radius:8px;color:var(--fg);text-decoration:none;overflow:hidden}a.card:hover,a.embed:hover,a.content-ref:hover,a.file:hover{border-color:var(--link)}
.card img{margin:-1rem -1rem .5rem;max-width:calc(100% + 2rem)}.card-title{font-weight:600}.card-text{color:var(--muted);font-size:.92rem}
a.embed,a.content-ref,a.file{display:flex;flex-direction:column;margin:1rem 0;padding:.75rem 1rem;border:1px solid var(--border);border-radius:8px;color:var(--fg);text-decoration:none}
.embed-host,.file-meta{font-size:.8rem;color:var(--muted)}.embed-title,.content-ref-title,.file-name{font-weight:600;overflow-wrap:anywhere}
.logo-dark{display:none}:root[data-theme=dark] .logo-dark{display:inline}:root[data-theme=dark] .logo-light{display:none}
@media (prefers-color-scheme:dark){:root[data-theme=system] .logo-dark{display:inline}:root[data-theme=system] .logo-light{display:none}}
.content-ref-title::before{content:"→ ";color:var(--link)}.file-name::before{content:"⤓ ";color:var(--link)}
.math{overflow-x:auto;overflow-y:hidden;margin:1rem 0}
.openapi-ref{padding:.5rem .75rem;border:1px solid var(--border);border-radius:8px}.method{font-weight:700;font-size:.8rem}
.page-footer{margin-top:3rem;padding-top:1rem;border-top:1px solid var(--border)}.updated{font-size:.85rem;color:var(--muted)}
.pager{display:grid;grid-template-columns:1fr 1fr;gap:.75rem;margin-top:1rem}.pager a{display:flex;flex-direction:column;padding:.75rem 1rem;border:1px solid var(--border);border-radius:8px;text-decoration:none;color:var(--fg);font-weight:600}
.pager a span{font-size:.8rem;font-weight:400;color:var(--muted)}.pager .next{grid-column:2;text-align:right}
aside.outline{position:sticky;top:calc(var(--header) + 3px);align-self:start;max-height:calc(100vh - var(--header) - 3px);overflow-y:auto;padding:1.5rem 0;font-size:.85rem}
aside.outline p{margin:0 0 .5rem;font-weight:650}aside.outline ul{list-style:none;margin:0;padding:0;border-left:1px solid var(--border)}
aside.outline a{display:block;padding:.2rem .75rem;margin-left:-1px;color:var(--muted);text-decoration:none;border-left:2px solid transparent}aside.outline .h3 a{padding-left:1.5rem}
aside.outline a[aria-current]{color:var(--link);border-left-color:var(--link)}
ul.results{padding-left:1.2rem}
form.feedback fieldset{margin:2.5rem 0 0;padding:1rem;border:1px solid var(--border);border-radius:8px}form.feedback legend{padding:0 .35rem;font-weight:600}
form.feedback label{display:block;font-size:.85rem;color:var(--muted)}form.feedback textarea{display:block;width:100%;margin:.25rem 0 .75rem;font:inherit;font-size:.9rem;padding:.4rem .6rem;border:1px solid var(--border);border-radius:6px;background:var(--bg);color:var(--fg);resize:vertical}
form.feedback p{display:flex;gap:.5rem;margin:0}form.feedback button{font:inherit;font-size:.9rem;padding:.3rem .9rem;border:1px solid var(--border);border-radius:6px;background:var(--soft);color:var(--fg);cursor:pointer}
@media (max-width:1279px){.layout{grid-template-columns:15rem minmax(0,1fr)}aside.outline{display:none}}
@media (max-width:1023px){.layout{display:block;padding:0 1rem}.menu-button{display:inline-flex}.menu-toggle{display:block;position:absolute;opacity:0;width:1px;height:1px;margin:0;pointer-events:none}
nav.pages{display:none;position:static;max-height:none;padding:.75rem 0;border-bottom:1px solid var(--border)}.menu-toggle:checked~.layout nav.pages{display:block}
header.top{padding:.5rem 1rem;gap:.5rem .75rem}form.search input{width:9rem}article h1{font-size:1.75rem}main{padding-top:1rem}}
@media (max-width:479px){form.search{order:5;flex:1 1 100%}form.search input{width:100%}}
@media print{header.top,nav.pages,aside.outline,.pager,button.copy,form.feedback{display:none}.layout{display:block}}
`;

/** Runs first in <head>: the reader's stored theme, when the site lets readers choose. */
export const THEME_JS = `try{var d=document.documentElement,t=localStorage.getItem("site-theme");if(d.hasAttribute("data-toggle")&&(t==="light"||t==="dark"))d.dataset.theme=t}catch(e){}`;

/** Deferred: the theme toggle, copy buttons, and the outline's current heading. */
export const SITE_JS = `(function(){var d=document.documentElement;
var t=document.querySelector(".theme-toggle");
function dark(){return d.dataset.theme==="dark"||(d.dataset.theme==="system"&&matchMedia("(prefers-color-scheme: dark)").matches)}
if(t&&d.hasAttribute("data-toggle")){t.hidden=false;t.setAttribute("aria-pressed",String(dark()));t.addEventListener("click",function(){var n=dark()?"light":"dark";d.dataset.theme=n;t.setAttribute("aria-pressed",String(n==="dark"));try{localStorage.setItem("site-theme",n)}catch(e){}})}
document.querySelectorAll("figure.code").forEach(function(f){var b=f.querySelector("button.copy");if(!b||!navigator.clipboard)return;b.hidden=false;b.addEventListener("click",function(){navigator.clipboard.writeText(f.querySelector("code").innerText).then(function(){b.textContent="Copied";setTimeout(function(){b.textContent="Copy"},1500)},function(){})})});
var links=[].slice.call(document.querySelectorAll("aside.outline a"));
if(links.length&&"IntersectionObserver" in window){var by={};links.forEach(function(a){by[decodeURIComponent(a.hash.slice(1))]=a});
var o=new IntersectionObserver(function(es){es.forEach(function(e){var a=by[e.target.id];if(e.isIntersecting&&a){links.forEach(function(l){l.removeAttribute("aria-current")});a.setAttribute("aria-current","location")}})},{rootMargin:"0px 0px -70% 0px"});
Object.keys(by).forEach(function(id){var h=document.getElementById(id);if(h)o.observe(h)})}})();
`;

/** The favicon of a site that set none: its primary color, as an inline SVG (never a request, never a 404). */
export function defaultFavicon(primary: string): string {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="${primary}"/><path d="M9 8h10l4 4v12H9z" fill="#fff"/></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

/** A favicon showing an emoji (the site's customization), as an inline SVG. */
export function emojiFavicon(emoji: string): string {
  const text = emoji.replace(/[<>&"']/g, "");
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><text x="16" y="26" font-size="26" text-anchor="middle">${text}</text></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

const channel = (hex: string, i: number) => Number.parseInt(hex.slice(1 + 2 * i, 3 + 2 * i), 16);
const expand = (hex: string) =>
  hex.length === 4 || hex.length === 5 ? `#${[...hex.slice(1, 4)].map((c) => c + c).join("")}` : hex.slice(0, 7);
function luminance(hex: string): number {
  const [r, g, b] = [0, 1, 2].map((i) => {
    const v = channel(hex, i) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
const contrast = (a: string, b: string) => {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
};
const mix = (hex: string, toward: number, amount: number) =>
  `#${[0, 1, 2]
    .map((i) =>
      Math.round(channel(hex, i) + (toward - channel(hex, i)) * amount)
        .toString(16)
        .padStart(2, "0"),
    )
    .join("")}`;

/**
 * The primary color made readable as link text on `background` (WCAG AA, 4.5:1): darkened (on a
 * light background) or lightened (on a dark one) as little as needed.
 */
export function readableOn(color: string, background: string): string {
  const base = expand(color);
  const toward = luminance(background) > 0.5 ? 0 : 255;
  for (let step = 0; step <= 20; step++) {
    const candidate = mix(base, toward, step / 20);
    if (contrast(candidate, background) >= 4.6) return candidate;
  }
  return toward ? "#ffffff" : "#000000";
}
