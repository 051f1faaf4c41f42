// The page frame shared by every dashboard page. Scripts and styles are
// external files under /assets (the CSP forbids inline ones). The CSRF token
// of a logged-in session is handed to app.js through a <meta> tag.
import { html, type HtmlValue, type SafeHtml } from "./escape";

export interface PageFrame {
  title: string;
  /** Nav entry to highlight. */
  active?: "overview" | "buckets" | "campaign" | "coverage" | "login";
  /** Session CSRF token when logged in (enables the triage controls). */
  csrf?: string;
  /** True when the request carries write credentials (session or token). */
  canWrite?: boolean;
  body: HtmlValue;
}

export function layout(p: PageFrame): SafeHtml {
  const nav = (key: PageFrame["active"], url: string, label: string) =>
    html`<a href="${url}"${p.active === key ? html` aria-current="page"` : ""}>${label}</a>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${p.csrf ? html`<meta name="csrf-token" content="${p.csrf}">` : ""}
<title>${p.title} · FuzzFarm</title>
<link rel="stylesheet" href="/assets/app.css">
<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
<script src="/assets/app.js" defer></script>
</head>
<body>
<header class="top">
  <a class="brand" href="/">FuzzFarm</a>
  <nav>${nav("overview", "/", "Overview")} ${nav("buckets", "/buckets", "Buckets")} <a href="/admin/queues">Queues</a> <a href="/docs">API</a></nav>
  <span class="live" id="live-status" title="live updates">●</span>
  ${
    p.csrf
      ? html`<form method="post" action="/logout" class="logout"><input type="hidden" name="_csrf" value="${p.csrf}"><button type="submit">Log out</button></form>`
      : html`<a class="login" href="/login">Log in</a>`
  }
</header>
<main id="main">
${p.body}
</main>
</body>
</html>`;
}

export function errorPage(status: number, code: string, message: string): SafeHtml {
  return layout({ title: `Error ${status}`, body: html`<h1>Error ${status}</h1><p><code>${code}</code></p><p class="error-message">${message}</p>` });
}
