#!/bin/sh
# Generates the secrets the compose file and the Kubernetes manifests use,
# into infra/secrets/ (gitignored), once: existing files are kept, so
# running it again never locks a running farm out of its own services.
#   sh infra/secrets.sh            then  docker compose -f infra/docker-compose.yml up -d
#   sh infra/secrets.sh k8s        also prints a `kubectl create secret` command for k8s/
# What each secret protects (docs/security.md):
#   redis_password         the Redis `default` user: coordinator (queues, sessions, events)
#   redis_worker_password  the Redis `worker` user: only the queues (ACL in users.acl)
#   postgres_password      the database (scram-sha-256; only the coordinator holds it)
#   job_key                signs jobs; workers run only jobs signed with it
#   admin_token            dashboard writes and logins
set -eu
PREFIX="${FUZZFARM_QUEUE_PREFIX:-fuzzfarm}"
dir="$(cd "$(dirname "$0")" && pwd)/secrets"
mkdir -p "$dir"
chmod 700 "$dir"
gen() { [ -s "$dir/$1" ] || (umask 077; head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$dir/$1"); }
for s in redis_password redis_worker_password postgres_password job_key admin_token; do gen "$s"; done
rp="$(cat "$dir/redis_password")"; wp="$(cat "$dir/redis_worker_password")"; pp="$(cat "$dir/postgres_password")"
umask 077
# The worker rules are workerAclRules(prefix) of packages/queue (a test keeps them equal).
printf 'user default on >%s ~* &* +@all\nuser worker on >%s resetkeys ~%s:jobs-* ~%s:maintenance-* ~%s:results:* ~%s:workers resetchannels +@all -@dangerous +info\n' \
  "$rp" "$wp" "$PREFIX" "$PREFIX" "$PREFIX" "$PREFIX" > "$dir/users.acl"
printf 'redis://default:%s@redis:6379\n' "$rp" > "$dir/coordinator_redis_url"
printf 'redis://worker:%s@redis:6379\n' "$wp" > "$dir/worker_redis_url"
printf 'postgresql://fuzzfarm:%s@postgres:5432/fuzzfarm\n' "$pp" > "$dir/database_url"
echo "secrets in $dir"
if [ "${1:-}" = "k8s" ]; then
  echo "kubectl create secret generic fuzzfarm \\"
  for s in job_key admin_token; do echo "  --from-file=$(echo $s | tr _ -)=$dir/$s \\"; done
  echo "  --from-literal=coordinator-redis-url=redis://default:$rp@fuzzfarm-redis:6379 \\"
  echo "  --from-literal=database-url=postgresql://fuzzfarm:$pp@fuzzfarm-postgres:5432/fuzzfarm"
  echo "kubectl create secret generic fuzzfarm-worker --from-file=job-key=$dir/job_key --from-literal=redis-url=redis://worker:$wp@fuzzfarm-redis:6379 --from-literal=redis-password=$wp"
fi
