// @fuzzfarm/deploy-check: FuzzFarm's deployment files (infra/) checked
// against their published schemas (Compose Specification, Kubernetes
// OpenAPI, KEDA CRDs) and against the farm's own rules (credentials,
// health checks, non-root workers with limits). No Docker or cluster needed.
export { checkCompose } from "./compose";
export { checkManifests } from "./kubernetes";
export type { Problem } from "./problem";
