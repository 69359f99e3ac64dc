# Sourced by bench/run and bench/ab, from the repository's root: what both do around the harness.

# Runs a class of the harness (bench/), with its dependencies.
harness() {
  java -Xmx2g -cp "bench/target/classes:$(cat bench/target/classpath.txt)" "$@"
}

# --help needs only the harness, built, and nothing started.
help_and_exit() { # main class, then the script's arguments
  [ -s bench/target/classpath.txt ] || ./mvnw -q -B -f bench/pom.xml package
  harness "$@"
  exit
}

# The local PostgreSQL with txinbox's role, counting statements (bench/pg-stat-statements).
prepare_postgres() {
  dev/postgres-setup
  bench/pg-stat-statements
}

# One ElasticMQ, as released on Maven Central (dev/elasticmq), for every run of the script, on $port, stopped as
# the script exits; sets broker_pid.
start_broker() {
  local port=$1
  if curl -s -o /dev/null "http://127.0.0.1:$port/?Action=ListQueues"; then
    echo "something already answers on port $port; stop it (the benchmark starts its own ElasticMQ)" >&2
    exit 1
  fi
  broker_pid=$(ELASTICMQ_PORT=$port ELASTICMQ_LOG=bench/target/elasticmq.log ELASTICMQ_JAVA_OPTS="-Xmx1g" \
    dev/elasticmq/start)
  trap 'kill "$broker_pid" 2>/dev/null || true' EXIT INT TERM
}
