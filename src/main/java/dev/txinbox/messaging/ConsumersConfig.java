package dev.txinbox.messaging;

import java.time.Duration;
import java.util.Map;

import dev.txinbox.inbox.RetrySettings;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithParentName;

/**
 * Per-consumer transport settings, {@code txinbox.consumers.<consumer>.*}. The SQS channel itself is
 * configured as {@code mp.messaging.incoming.<consumer>.*}.
 */
@ConfigMapping(prefix = "txinbox.consumers")
public interface ConsumersConfig {

    @WithParentName
    Map<String, Consumer> consumers();

    interface Consumer {

        /** Source queue name (the channel's {@code queue}). */
        String queue();

        /** Dead-letter queue name: malformed messages are copied here with the reason. */
        String dlq();

        /**
         * Worker threads, each running one batch (one transaction) at a time; one group is never in two
         * batches at once.
         */
        @WithDefault("4")
        int parallelism();

        /**
         * Messages one worker takes as one transaction, at most: whatever is ready, never waiting for more
         * (see BatchDispatcher). One commit, one claim statement and a few SQS calls for the whole batch.
         */
        @WithDefault("32")
        int batchSize();

        /** Messages accepted from the channel but not finished, at most; beyond it, fetching waits. */
        @WithDefault("200")
        int maxInFlight();

        /** The queue's visibility timeout: bounds how long a failed message holds back its group. */
        @WithDefault("30s")
        Duration visibilityTimeout();

        /** Retries of transient failures. */
        Retry retry();

        default RetrySettings retrySettings() {
            return new RetrySettings(retry().base(), retry().cap(), retry().maxAttempts());
        }
    }

    interface Retry {

        /** Delay before the second attempt; doubles with every further attempt (with jitter). */
        @WithDefault("1s")
        Duration base();

        /** Longest delay between two attempts. */
        @WithDefault("5m")
        Duration cap();

        /**
         * Attempts in all before a message is dead-lettered. The queue's own maxReceiveCount must be
         * higher, or SQS moves the message to its DLQ first, without txinbox's reason.
         */
        @WithDefault("5")
        int maxAttempts();
    }
}
