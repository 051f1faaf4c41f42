-- AlterTable
ALTER TABLE "CrashBucket" ADD COLUMN     "fixedVersion" TEXT;

-- AlterTable
ALTER TABLE "CrashReport" ADD COLUMN     "hits" INTEGER NOT NULL DEFAULT 1;

-- CreateTable
CREATE TABLE "BucketRoute" (
    "targetId" TEXT NOT NULL,
    "signature" TEXT NOT NULL,
    "bucketId" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "actor" TEXT NOT NULL DEFAULT 'system',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BucketRoute_pkey" PRIMARY KEY ("targetId","signature")
);

-- CreateTable
CREATE TABLE "CrashFloodWindow" (
    "campaignId" TEXT NOT NULL,
    "windowStart" TIMESTAMP(3) NOT NULL,
    "created" INTEGER NOT NULL DEFAULT 0,
    "throttled" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "CrashFloodWindow_pkey" PRIMARY KEY ("campaignId","windowStart")
);

-- CreateIndex
CREATE INDEX "BucketRoute_bucketId_idx" ON "BucketRoute"("bucketId");

-- CreateIndex
CREATE INDEX "CrashReport_bucketId_targetVersion_idx" ON "CrashReport"("bucketId", "targetVersion");

-- AddForeignKey
ALTER TABLE "BucketRoute" ADD CONSTRAINT "BucketRoute_targetId_fkey" FOREIGN KEY ("targetId") REFERENCES "Target"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BucketRoute" ADD CONSTRAINT "BucketRoute_bucketId_fkey" FOREIGN KEY ("bucketId") REFERENCES "CrashBucket"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CrashFloodWindow" ADD CONSTRAINT "CrashFloodWindow_campaignId_fkey" FOREIGN KEY ("campaignId") REFERENCES "Campaign"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

