-- AlterTable
ALTER TABLE "CrashFloodWindow" DROP CONSTRAINT "CrashFloodWindow_pkey",
ADD COLUMN     "site" TEXT NOT NULL DEFAULT '',
ADD CONSTRAINT "CrashFloodWindow_pkey" PRIMARY KEY ("campaignId", "windowStart", "site");

