// DNS rebinding guard. A page on attacker.example can make a browser send
// requests to 127.0.0.1 once the attacker's DNS answer changes, but those
// requests still say `Host: attacker.example`. Answering only to the host
// names the operator configured (loopback always) refuses them with 421
// before anything else runs.
import fp from "fastify-plugin";
import type { FastifyInstance } from "fastify";
import { FuzzFarmError } from "@fuzzfarm/protocol";

const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];

/** The host name of a Host header, lower-cased, without its port ("[::1]:80" -> "[::1]"). */
export function hostName(header: string | undefined): string {
  const h = (header ?? "").trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(0, h.indexOf("]") + 1);
  const i = h.indexOf(":");
  return i < 0 ? h : h.slice(0, i);
}

async function hostGuard(app: FastifyInstance) {
  const allowed = new Set([...LOOPBACK, ...(app.ff.opts.allowedHosts ?? []).map((h) => hostName(h.includes(":") && !h.startsWith("[") && h.split(":").length > 2 ? `[${h}]` : h))]);
  app.addHook("onRequest", async (req) => {
    const name = hostName(req.headers.host);
    if (!allowed.has(name)) throw new FuzzFarmError("FF_ERR_MISDIRECTED", `this dashboard does not serve host ${JSON.stringify(name.slice(0, 100))}; add it to allowedHosts`);
  });
}

export default fp(hostGuard, { name: "ff-host-guard", dependencies: ["ff-services"] });
