// Job payloads are signed by the coordinator and checked by workers. Write
// access to Redis must not mean code execution on every worker (a job names
// a target to run, and options that reach processes), so a worker runs only
// payloads carrying an HMAC-SHA256 made with the farm's job key, which
// workers get out of band (FUZZFARM_JOB_KEY, or the key file on the
// coordinator's machine). The MAC covers the payload's JSON text exactly as
// it was queued: BullMQ stores `JSON.stringify(data)` and hands back
// `JSON.parse` of it, which keeps key order and numbers.
import { createHmac, timingSafeEqual } from "node:crypto";
import { FuzzFarmError } from "@fuzzfarm/protocol";

/** Field of the queued job data that holds the signature. */
export const SIGNATURE_FIELD = "sig";

const mac = (key: string, body: string) => createHmac("sha256", key).update("fuzzfarm job v1\n").update(body).digest("base64url");

/** The job data to queue: the payload plus its signature. */
export function signJobData<T extends object>(payload: T, key: string): T & { sig: string } {
  if (SIGNATURE_FIELD in payload) throw new FuzzFarmError("FF_ERR_BAD_JOB", `a job payload may not carry its own "${SIGNATURE_FIELD}" field`);
  return { ...payload, [SIGNATURE_FIELD]: mac(key, JSON.stringify(payload)) } as T & { sig: string };
}

/** The payload of queued job data whose signature checks out; throws FF_ERR_BAD_JOB otherwise (unsigned, tampered, or signed with another key). */
export function verifyJobData(data: unknown, key: string): Record<string, unknown> {
  if (!data || typeof data !== "object" || Array.isArray(data)) throw new FuzzFarmError("FF_ERR_BAD_JOB", "job data is not an object");
  const { [SIGNATURE_FIELD]: sig, ...payload } = data as Record<string, unknown>;
  if (typeof sig !== "string") throw new FuzzFarmError("FF_ERR_BAD_JOB", "unsigned job: workers run only jobs signed with the farm's job key");
  const want = Buffer.from(mac(key, JSON.stringify(payload)));
  const got = Buffer.from(sig);
  if (got.length !== want.length || !timingSafeEqual(got, want))
    throw new FuzzFarmError("FF_ERR_BAD_JOB", "job signature does not match: tampered, or signed with another job key than this worker's (FUZZFARM_JOB_KEY)");
  return payload;
}
