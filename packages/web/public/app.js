// FuzzFarm dashboard client. Served as a static file (the CSP allows no inline
// script). Three jobs:
//  1. live updates: one EventSource on /api/events; on a farm event, re-fetch
//     this page and swap every [data-live] region (forms are outside them, so
//     typing is never interrupted). The new markup is escaped server-side and
//     parsed by DOMParser, which runs no script.
//  2. API forms: <form data-api="/api/..."> submit JSON with the session's
//     CSRF token (from <meta name="csrf-token">), then reload or follow.
//  3. copy buttons: [data-copy] copies the text of the element it names.
(function () {
  "use strict";
  const body = document.body;
  const status = document.getElementById("live-status");
  let refreshes = 0;
  let pending = false;
  let running = false;

  async function refresh() {
    if (running) {
      pending = true;
      return;
    }
    running = true;
    try {
      const res = await fetch(location.href, { headers: { accept: "text/html" }, credentials: "same-origin" });
      if (!res.ok) return;
      const doc = new DOMParser().parseFromString(await res.text(), "text/html");
      for (const el of Array.from(document.querySelectorAll("[data-live]"))) {
        const id = el.getAttribute("data-live");
        const next = Array.from(doc.querySelectorAll("[data-live]")).find((n) => n.getAttribute("data-live") === id);
        if (next) el.replaceWith(document.importNode(next, true));
      }
      refreshes++;
      body.setAttribute("data-live-refreshes", String(refreshes));
    } catch (e) {
      // The next event retries.
    } finally {
      running = false;
      if (pending) {
        pending = false;
        setTimeout(refresh, 250);
      }
    }
  }

  let timer = 0;
  function scheduleRefresh() {
    if (timer) return;
    timer = window.setTimeout(() => {
      timer = 0;
      refresh();
    }, 200);
  }

  if (document.querySelector("[data-live]") && "EventSource" in window) {
    const es = new EventSource("/api/events");
    es.addEventListener("open", () => {
      status && status.classList.add("on");
      body.setAttribute("data-live-connected", "1");
    });
    es.addEventListener("error", () => status && status.classList.remove("on"));
    es.addEventListener("farm", () => scheduleRefresh());
  }

  const csrfMeta = document.querySelector('meta[name="csrf-token"]');
  const csrf = csrfMeta ? csrfMeta.getAttribute("content") || "" : "";

  /** @param {HTMLFormElement} form */
  function formJson(form) {
    /** @type {Record<string, unknown>} */
    const out = {};
    const arrays = (form.getAttribute("data-arrays") || "").split(",").filter(Boolean);
    for (const name of arrays) out[name] = [];
    for (const [k, v] of new FormData(form).entries()) {
      if (typeof v !== "string") continue;
      if (arrays.includes(k)) {
        for (const part of v.split(/[\s,]+/).filter(Boolean)) /** @type {string[]} */ (out[k]).push(part);
      } else out[k] = v;
    }
    return out;
  }

  document.addEventListener("submit", async (ev) => {
    const form = ev.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-api")) return;
    ev.preventDefault();
    const out = form.querySelector(".api-result");
    const show = (/** @type {string} */ text, /** @type {boolean} */ ok) => {
      if (!out) return;
      out.textContent = text;
      out.className = "api-result " + (ok ? "ok" : "err");
    };
    const button = form.querySelector("button[type=submit]");
    if (button instanceof HTMLButtonElement) button.disabled = true;
    try {
      const res = await fetch(form.getAttribute("data-api") || "", {
        method: form.getAttribute("data-method") || "POST",
        headers: { "content-type": "application/json", "x-csrf-token": csrf },
        credentials: "same-origin",
        body: JSON.stringify(formJson(form)),
      });
      const json = await res.json().catch(() => ({}));
      if (!res.ok) {
        show(json && json.error ? json.error.code + ": " + json.error.message : "HTTP " + res.status, false);
        return;
      }
      show("done", true);
      const follow = form.getAttribute("data-follow");
      if (follow && json && typeof json[follow] === "string" && json[follow].startsWith("/")) location.assign(json[follow]);
      else location.reload();
    } catch (e) {
      show(String(e), false);
    } finally {
      if (button instanceof HTMLButtonElement) button.disabled = false;
    }
  });

  document.addEventListener("click", async (ev) => {
    const t = ev.target;
    if (!(t instanceof HTMLElement) || !t.hasAttribute("data-copy")) return;
    const src = document.getElementById(t.getAttribute("data-copy") || "");
    if (!src) return;
    try {
      await navigator.clipboard.writeText(src.textContent || "");
      t.textContent = "Copied";
    } catch (e) {
      const range = document.createRange();
      range.selectNodeContents(src);
      const sel = window.getSelection();
      sel && (sel.removeAllRanges(), sel.addRange(range));
      t.textContent = "Selected: press Ctrl+C";
    }
  });
})();
