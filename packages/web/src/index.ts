// @fuzzfarm/web: the dashboard and JSON API of a FuzzFarm coordinator.
export { buildApp } from "./app";
export type { BuildAppOptions, GitHubWebhookOptions, CiApiOptions, CiCampaignRequest } from "./options";
export { httpStatusOf, errorBody, toFuzzFarmError, type ErrorBody } from "./plugins/errors";
export { escapeHtml, html, type SafeHtml } from "./html/escape";
