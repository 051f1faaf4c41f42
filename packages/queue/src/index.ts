// @fuzzfarm/queue: BullMQ queues, Redis connections and worker heartbeats.
export { connect, pingRedis, redisHost, type RedisConfig } from "./connection";
export { openQueues, enqueueJob, queueOf, publishResult, queueDepths, jobQueueName, RESULTS_QUEUE, DEFAULT_PREFIX, type FarmQueues, type QueueDepth, type QueuesConfig } from "./queues";
export { jobRoute, routeServedBy, parseJobQueueName, listRoutes, routesKey, assertEngineServed } from "./routes";
export { signJobData, verifyJobData, SIGNATURE_FIELD } from "./signing";
export { workerAclRules } from "./acl";
export { publishEvent, subscribeEvents, type FarmEvent } from "./events";
export { publishHeartbeat, readHeartbeats, removeHeartbeat, type Heartbeat } from "./heartbeats";
export { Worker as QueueWorker, Job as QueueJob, UnrecoverableError, DelayedError, type ConnectionOptions } from "bullmq";
