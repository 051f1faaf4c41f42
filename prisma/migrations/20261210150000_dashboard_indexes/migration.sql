-- Indexes for the dashboard (packages/db/src/dashboard.ts), measured by bench/web-buckets.ts.
-- Buckets of a campaign (bucket list filter, campaign page, overview counts): index-only over (campaign, bucket).
CREATE INDEX IF NOT EXISTS "CrashReport_campaignId_bucketId_idx" ON "CrashReport"("campaignId", "bucketId");
-- Job throughput of a campaign (done jobs by finish time).
CREATE INDEX IF NOT EXISTS "Job_campaignId_status_finishedAt_idx" ON "Job"("campaignId", "status", "finishedAt");
-- Job latency histogram of /metrics (jobs finished since the last scrape).
CREATE INDEX IF NOT EXISTS "Job_finishedAt_idx" ON "Job"("finishedAt");
-- Bucket list in its default order (count desc): a LIMIT walks this index, probing the campaign filter per bucket.
CREATE INDEX IF NOT EXISTS "CrashBucket_count_id_idx" ON "CrashBucket"("count", "id");
