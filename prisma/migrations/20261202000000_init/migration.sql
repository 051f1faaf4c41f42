-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "Target" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "engine" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "version" TEXT NOT NULL DEFAULT 'unversioned',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Target_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Campaign" (
    "id" TEXT NOT NULL,
    "targetId" TEXT NOT NULL,
    "engine" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'running',
    "config" JSONB NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deadline" TIMESTAMP(3) NOT NULL,
    "endedAt" TIMESTAMP(3),
    "jobSeq" INTEGER NOT NULL DEFAULT 0,
    "jobsDone" INTEGER NOT NULL DEFAULT 0,
    "execs" BIGINT NOT NULL DEFAULT 0,
    "busyMs" BIGINT NOT NULL DEFAULT 0,
    "covered" INTEGER NOT NULL DEFAULT 0,
    "coverageTotal" INTEGER NOT NULL DEFAULT 0,
    "novelty" INTEGER NOT NULL DEFAULT 0,
    "corpusSize" INTEGER NOT NULL DEFAULT 0,
    "coverageMap" JSONB,

    CONSTRAINT "Campaign_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Job" (
    "id" TEXT NOT NULL,
    "campaignId" TEXT NOT NULL,
    "kind" TEXT NOT NULL DEFAULT 'fuzz',
    "status" TEXT NOT NULL DEFAULT 'queued',
    "payload" JSONB NOT NULL,
    "workerId" TEXT,
    "queuedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),
    "execs" INTEGER NOT NULL DEFAULT 0,
    "busyMs" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,

    CONSTRAINT "Job_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Feature" (
    "campaignId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "jobId" TEXT,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Feature_pkey" PRIMARY KEY ("campaignId","key")
);

-- CreateTable
CREATE TABLE "CorpusEntry" (
    "id" TEXT NOT NULL,
    "campaignId" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "input" BYTEA NOT NULL,
    "strategy" JSONB NOT NULL,
    "parentId" TEXT,
    "newFeatures" JSONB NOT NULL DEFAULT '[]',
    "newCoverage" INTEGER NOT NULL DEFAULT 0,
    "execTimeUs" INTEGER NOT NULL DEFAULT 0,
    "timesChosen" INTEGER NOT NULL DEFAULT 0,
    "timesProductive" INTEGER NOT NULL DEFAULT 0,
    "jobId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CorpusEntry_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CoverageSample" (
    "id" BIGSERIAL NOT NULL,
    "campaignId" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "execs" BIGINT NOT NULL,
    "covered" INTEGER NOT NULL,
    "coverageTotal" INTEGER NOT NULL,
    "novelty" INTEGER NOT NULL,
    "corpusSize" INTEGER NOT NULL,
    "buckets" INTEGER NOT NULL,
    "strategyYield" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "CoverageSample_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CrashBucket" (
    "id" TEXT NOT NULL,
    "targetId" TEXT NOT NULL,
    "signature" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "frames" JSONB NOT NULL DEFAULT '[]',
    "count" INTEGER NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL DEFAULT 'new',
    "firstSeen" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSeen" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "firstSeenVersion" TEXT,
    "lastSeenVersion" TEXT,
    "reproRuns" INTEGER NOT NULL DEFAULT 0,
    "reproHits" INTEGER NOT NULL DEFAULT 0,
    "reproLabel" TEXT NOT NULL DEFAULT 'unknown',
    "reproCommand" TEXT,
    "reproducer" BYTEA,
    "minimized" BYTEA,
    "note" TEXT,
    "mergedIntoId" TEXT,

    CONSTRAINT "CrashBucket_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CrashReport" (
    "id" TEXT NOT NULL,
    "bucketId" TEXT NOT NULL,
    "campaignId" TEXT,
    "jobId" TEXT,
    "ordinal" INTEGER NOT NULL DEFAULT 0,
    "kind" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "stack" TEXT NOT NULL,
    "signature" TEXT NOT NULL,
    "targetVersion" TEXT,
    "input" BYTEA,
    "artifact" JSONB NOT NULL DEFAULT '{}',
    "triage" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CrashReport_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BucketEvent" (
    "id" BIGSERIAL NOT NULL,
    "bucketId" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "actor" TEXT NOT NULL DEFAULT 'system',
    "detail" JSONB NOT NULL DEFAULT '{}',
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BucketEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Worker" (
    "id" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "version" TEXT NOT NULL,
    "engines" TEXT[],
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastHeartbeat" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "currentJobId" TEXT,
    "execsPerSec" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "jobsDone" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "Worker_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Target_name_version_key" ON "Target"("name", "version");

-- CreateIndex
CREATE INDEX "Campaign_status_idx" ON "Campaign"("status");

-- CreateIndex
CREATE INDEX "Job_campaignId_status_idx" ON "Job"("campaignId", "status");

-- CreateIndex
CREATE UNIQUE INDEX "CorpusEntry_campaignId_hash_key" ON "CorpusEntry"("campaignId", "hash");

-- CreateIndex
CREATE INDEX "CoverageSample_campaignId_at_idx" ON "CoverageSample"("campaignId", "at");

-- CreateIndex
CREATE INDEX "CrashBucket_lastSeen_idx" ON "CrashBucket"("lastSeen");

-- CreateIndex
CREATE INDEX "CrashBucket_status_idx" ON "CrashBucket"("status");

-- CreateIndex
CREATE UNIQUE INDEX "CrashBucket_targetId_signature_key" ON "CrashBucket"("targetId", "signature");

-- CreateIndex
CREATE INDEX "CrashReport_bucketId_createdAt_idx" ON "CrashReport"("bucketId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "CrashReport_jobId_ordinal_key" ON "CrashReport"("jobId", "ordinal");

-- CreateIndex
CREATE INDEX "BucketEvent_bucketId_at_idx" ON "BucketEvent"("bucketId", "at");

-- AddForeignKey
ALTER TABLE "Campaign" ADD CONSTRAINT "Campaign_targetId_fkey" FOREIGN KEY ("targetId") REFERENCES "Target"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Job" ADD CONSTRAINT "Job_campaignId_fkey" FOREIGN KEY ("campaignId") REFERENCES "Campaign"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Feature" ADD CONSTRAINT "Feature_campaignId_fkey" FOREIGN KEY ("campaignId") REFERENCES "Campaign"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CorpusEntry" ADD CONSTRAINT "CorpusEntry_campaignId_fkey" FOREIGN KEY ("campaignId") REFERENCES "Campaign"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CoverageSample" ADD CONSTRAINT "CoverageSample_campaignId_fkey" FOREIGN KEY ("campaignId") REFERENCES "Campaign"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CrashBucket" ADD CONSTRAINT "CrashBucket_targetId_fkey" FOREIGN KEY ("targetId") REFERENCES "Target"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CrashReport" ADD CONSTRAINT "CrashReport_bucketId_fkey" FOREIGN KEY ("bucketId") REFERENCES "CrashBucket"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CrashReport" ADD CONSTRAINT "CrashReport_campaignId_fkey" FOREIGN KEY ("campaignId") REFERENCES "Campaign"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BucketEvent" ADD CONSTRAINT "BucketEvent_bucketId_fkey" FOREIGN KEY ("bucketId") REFERENCES "CrashBucket"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

