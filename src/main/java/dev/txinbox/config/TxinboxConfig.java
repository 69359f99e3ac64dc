package dev.txinbox.config;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotEmpty;

import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Every txinbox setting, {@code txinbox.*}, with its default. Quarkus validates the constraints at start
 * and refuses to start on a bad value, naming each setting; what no annotation can check (a consumer
 * without handler or channel) is {@code ConsumerSetupCheck}'s. Every property is also an environment
 * variable: {@code txinbox.consumers.orders.retry.base} is {@code TXINBOX_CONSUMERS_ORDERS_RETRY_BASE}.
 * The SQS channel of a consumer is configured as {@code mp.messaging.incoming.<consumer>.*}.
 */
@ConfigMapping(prefix = "txinbox")
public interface TxinboxConfig {

    /**
     * The consumers by name, those switched off included; each needs an {@code InboxHandler} and a channel of the
     * same name. Everything that runs, watches or counts a consumer asks {@link #runningConsumers()}.
     */
    @NotEmpty(message = "has no consumer: set txinbox.consumers.<name>.queue and .dlq")
    Map<String, Consumer> consumers();

    /** The consumers that run: all but those switched off ({@code txinbox.consumers.<name>.enabled=false}). */
    default Map<String, Consumer> runningConsumers() {
        Map<String, Consumer> running = new TreeMap<>();
        consumers().forEach((name, consumer) -> {
            if (consumer.enabled()) {
                running.put(name, consumer);
            }
        });
        return running;
    }

    Inbox inbox();

    Health health();

    Retention retention();

    Admin admin();

    Console console();

    Outbox outbox();

    interface Consumer {

        /**
         * Whether the consumer runs. One switched off has no channel (its {@code mp.messaging.incoming.<name>.enabled}
         * follows this setting), no health entry, no metrics and no console page; its rows, if any, stay.
         */
        @WithDefault("true")
        boolean enabled();

        /** Source queue name (the channel's {@code queue}). */
        @NotBlank
        String queue();

        /** Dead-letter queue name: malformed messages and exhausted retries are copied here with the reason. */
        @NotBlank
        String dlq();

        /**
         * Worker threads, each running one batch (one transaction) at a time; one group is never in two
         * batches at once.
         */
        @WithDefault("4")
        @Min(1)
        @Max(256)
        int parallelism();

        /**
         * Messages one worker takes as one transaction, at most: whatever is ready, never waiting for more
         * (see BatchDispatcher). One commit, one claim statement and a few SQS calls for the whole batch.
         */
        @WithDefault("32")
        @Min(1)
        @Max(1000)
        int batchSize();

        /** Messages accepted from the channel but not finished, at most; beyond it, fetching waits. */
        @WithDefault("200")
        @Min(1)
        int maxInFlight();

        /** The queue's visibility timeout: bounds how long a failed message holds back its group. */
        @WithDefault("30s")
        @DurationMin(seconds = 1)
        Duration visibilityTimeout();

        Retry retry();

        // Checks across two settings: the validator reports them by these names, followed by the message.

        @AssertTrue(message = "failed: max-in-flight must be at least parallelism (each worker needs a message to work on)")
        default boolean isMaxInFlightAtLeastParallelism() {
            return maxInFlight() >= parallelism();
        }

        @AssertTrue(message = "failed: dlq must name a dead-letter queue other than the source queue")
        default boolean isDlqOtherThanQueue() {
            return !dlq().equals(queue());
        }

        @AssertTrue(message = "failed: dlq must be a FIFO queue exactly when queue is one (SQS refuses the copy otherwise)")
        default boolean isDlqFifoLikeQueue() {
            return queue().endsWith(".fifo") == dlq().endsWith(".fifo");
        }
    }

    /** How a consumer retries transient failures. */
    interface Retry {

        /** Delay before the second attempt; doubles with every further attempt (with jitter). */
        @WithDefault("1s")
        @DurationMin(millis = 1)
        Duration base();

        /** Longest delay between two attempts. */
        @WithDefault("5m")
        Duration cap();

        /**
         * Attempts in all before a message is dead-lettered. The queue's own maxReceiveCount must be
         * higher, or SQS moves the message to its DLQ first, without txinbox's reason (RedrivePolicyCheck).
         */
        @WithDefault("5")
        @Min(1)
        int maxAttempts();

        @AssertTrue(message = "failed: cap must not be shorter than base")
        default boolean isCapAtLeastBase() {
            return cap().compareTo(base()) >= 0;
        }
    }

    interface Inbox {

        /** Bodies larger than this are dead-lettered unread (SQS's own limit is 1 MiB). */
        @WithDefault("262144")
        @Min(1024)
        @Max(1048576)
        int maxBodyBytes();
    }

    interface Health {

        /** How often the inbox statistics behind health, gauges and the console are refreshed. */
        @WithDefault("5s")
        @DurationMin(millis = 100)
        Duration refresh();

        /** Liveness turns DOWN when a consumer neither polled nor finished a message for this long. */
        @WithDefault("2m")
        @DurationMin(seconds = 1)
        Duration stallAfter();

        /** inbox-lag turns DOWN when the lag exceeds this. */
        @WithDefault("5m")
        @DurationMin(seconds = 1)
        Duration maxLag();

        /** inbox-lag turns DOWN when a parked event has waited longer than this. */
        @WithDefault("24h")
        @DurationMin(seconds = 1)
        Duration maxParkedAge();

        /** inbox-lag turns DOWN when more entries than this are FAILED (waiting for a retry). */
        @WithDefault("1000")
        @Min(0)
        long maxFailed();
    }

    interface Retention {

        /** PROCESSED, STALE and REJECTED rows older than this are deleted. Must exceed the queue's retention. */
        @WithDefault("14d")
        @DurationMin(minutes = 1)
        Duration processed();

        /** DEAD rows older than this are deleted. */
        @WithDefault("30d")
        @DurationMin(minutes = 1)
        Duration dead();

        /** How often the job runs. */
        @WithDefault("10m")
        @DurationMin(seconds = 1)
        Duration interval();

        /** Rows deleted per transaction. */
        @WithDefault("5000")
        @Min(1)
        @Max(1000000)
        int batchSize();
    }

    interface Admin {

        /** Bearer token of the admin API; without one every admin call is refused. */
        Optional<String> token();
    }

    /** The operator console at /console; it opens with the admin token. */
    interface Console {

        /** How long a session lasts after sign-in; signing out ends it earlier. */
        @WithDefault("8h")
        @DurationMin(minutes = 1)
        Duration sessionLifetime();

        /**
         * A refused sign-in is answered after this delay, and the same client is not heard again for as long
         * after the answer; every further refusal in a row doubles it, up to 30 s.
         */
        @WithDefault("1s")
        Duration failedSignInDelay();

        /** How often the overview's plots sample the outcome counters and the lag. */
        @WithDefault("10s")
        @DurationMin(seconds = 1)
        @DurationMax(minutes = 1)
        Duration sampleEvery();

        /**
         * Whether the session cookie is marked Secure. Unset: when the request came over TLS (as the service
         * sees it). Set true behind a proxy that terminates TLS and forwards plain HTTP without forwarded headers.
         */
        Optional<Boolean> secureCookie();

        /**
         * Where an entry's trace can be seen: a URL with {@code {traceId}} where the trace id goes (say
         * {@code https://tracing.example/trace/{traceId}}; {@code TXINBOX_CONSOLE_TRACE_URL_TEMPLATE}). Unset: the
         * entry's page shows the trace id without a link.
         */
        Optional<String> traceUrlTemplate();
    }

    /** The transactional outbox and its embedded relay (docs/OUTBOX.md, CONTRACT §6). */
    interface Outbox {

        /** The SQS FIFO queue the relay publishes to ({@code TXINBOX_ORDER_EVENTS_QUEUE}); the operator creates it. */
        @WithDefault("order-events.fifo")
        @NotBlank
        String queue();

        /**
         * Aggregates are spread over this many partitions by a hash of their id; a relay instance owns whole
         * partitions. Fixed for the life of the table: rows keep the partition they were recorded with.
         */
        @WithDefault("16")
        @Min(1)
        @Max(1024)
        int partitions();

        /**
         * Whether a published event stays in the table, marked published, until {@link #retention} deletes it. Off (the
         * default), the relay deletes each event in the statement that would have marked it: PostgreSQL writes no
         * second version of the row and none of its index entries, which every event would pay for a history that no
         * guarantee reads (the consumer's inbox, the metrics and the traces say what was sent).
         */
        @WithDefault("false")
        boolean keepPublished();

        /**
         * Skipped events, and published ones when {@link #keepPublished kept}, are deleted once they were recorded
         * longer ago than this; with the relay off (Debezium), every event. {@code 0}: published events are deleted as
         * they are published, whatever {@link #keepPublished} says.
         */
        @WithDefault("24h")
        Duration retention();

        /** Whether the relay deletes an event as it publishes it, instead of marking it. */
        default boolean deletesOnPublish() {
            return !keepPublished() || retention().isZero();
        }

        /** Events deleted per retention transaction. */
        @WithDefault("1000")
        @Min(1)
        @Max(100000)
        int retentionBatchSize();

        /** Readiness {@code outbox} turns DOWN when the oldest pending event is older than this. */
        @WithDefault("5m")
        @DurationMin(seconds = 1)
        Duration maxPendingAge();

        Relay relay();

        @AssertTrue(message = "failed: retention must be 0 (deleted when published) or at least 1m")
        default boolean isRetentionZeroOrAMinute() {
            return retention().isZero() || retention().compareTo(Duration.ofMinutes(1)) >= 0;
        }

        @AssertTrue(message = "failed: queue must be a FIFO queue (name ending in .fifo): order per aggregate needs it")
        default boolean isQueueFifo() {
            return queue().endsWith(".fifo");
        }
    }

    interface Relay {

        /** The embedded relay ({@code TXINBOX_OUTBOX_RELAY_ENABLED}); off when Debezium publishes the table. */
        @WithDefault("true")
        boolean enabled();

        /**
         * The relay's own connections to PostgreSQL (its partition locks, its reads and marks, and its LISTEN), with
         * the datasource's user and password; the datasource's URL when not set. Set it to a direct connection when
         * the datasource goes through a pooler in transaction mode: the relay's locks and LISTEN live in its session
         * ({@code TXINBOX_OUTBOX_RELAY_JDBC_URL}).
         */
        Optional<String> jdbcUrl();

        /** How often the relay looks for due events without being woken by a commit. */
        @WithDefault("1s")
        @DurationMin(millis = 10)
        Duration pollInterval();

        /** How often an instance tries to take partitions nobody owns (a crashed pod's) or gives its surplus back. */
        @WithDefault("5s")
        @DurationMin(millis = 100)
        Duration claimInterval();

        /** Delay after the first rejection of an event; doubles with every further one. */
        @WithDefault("1s")
        @DurationMin(millis = 1)
        Duration retryBase();

        /** Longest delay between two attempts of a rejected event, and longest backoff during an outage. */
        @WithDefault("5m")
        Duration retryCap();

        /** Bodies larger than this are not sent: the event is rejected at once (SQS's own limit is 256 KiB). */
        @WithDefault("262144")
        @Min(1024)
        @Max(1048576)
        int maxMessageBytes();

        @AssertTrue(message = "failed: retry-cap must not be shorter than retry-base")
        default boolean isCapAtLeastBase() {
            return retryCap().compareTo(retryBase()) >= 0;
        }
    }
}
