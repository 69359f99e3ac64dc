package dev.txinbox.messaging.sqs;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.reactive.messaging.Message;
import org.jboss.logging.Logger;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.messaging.BatchDispatcher;
import dev.txinbox.messaging.BatchProcessor;
import dev.txinbox.messaging.ConsumerProgress;
import dev.txinbox.messaging.ConsumerSetupCheck;
import dev.txinbox.messaging.DatabaseGate;
import dev.txinbox.messaging.Delivery;
import dev.txinbox.messaging.InboxMetrics;

/**
 * The SQS channels' way into the pipeline, its receive edge: the adapter makes each received message a
 * {@link Delivery} ({@link ReceivedMessages#delivery}), which is queued behind its group ({@link BatchDispatcher}),
 * whose workers hand whatever is ready, as one batch, to the {@link BatchProcessor}. From here to the settlement the
 * pipeline works on the {@code Delivery} alone.
 * <p>
 * The channel's own ack and nack do nothing ({@code ack-strategy=ignore}, {@code failure-strategy=ignore}):
 * a failed delete inside the connector would end the channel, and it deletes one message per call.
 */
@ApplicationScoped
public class SqsInboxReceiver {

    private static final Logger LOG = Logger.getLogger(SqsInboxReceiver.class);

    private final BatchProcessor processor;
    private final InboxMetrics metrics;
    private final TxinboxConfig config;
    private final DatabaseGate databaseGate;
    private final ReceivedMessages received;
    private final Map<String, BatchDispatcher<Delivery>> dispatchers = new ConcurrentHashMap<>();
    private final Map<String, ConsumerProgress> progress = new ConcurrentHashMap<>();
    private volatile boolean stopping;

    public SqsInboxReceiver(BatchProcessor processor, InboxMetrics metrics, TxinboxConfig config,
            DatabaseGate databaseGate, ReceivedMessages received) {
        this.processor = processor;
        this.metrics = metrics;
        this.config = config;
        this.databaseGate = databaseGate;
        this.received = received;
    }

    /** Accepts one message of {@code consumer}'s channel; the stage completes when the channel may fetch on. */
    public CompletionStage<Void> accept(String consumer, Message<String> message) {
        TxinboxConfig.Consumer settings = settings(consumer);
        Delivery delivery = received.delivery(settings.queue(), message);
        if (delivery == null) {
            LOG.errorf("consumer %s received a message without SQS metadata; ignored", consumer);
            return CompletableFuture.completedFuture(null);
        }
        if (stopping) {
            // Not taken: it stays with what was received and not processed, which the stop hands back.
            LOG.debugf("consumer %s: stopping; message %s left to the stop's hand-back", consumer, delivery.messageId());
            return CompletableFuture.completedFuture(null);
        }
        metrics.stage(consumer, InboxMetrics.Stage.RECEIVE_BUFFER, delivery.takenAtNanos() - delivery.receivedAtNanos(),
                1);
        ConsumerProgress consumerProgress = progress(consumer);
        consumerProgress.taken(delivery);
        CompletionStage<Void> room = dispatcher(consumer, settings, consumerProgress).submit(delivery);
        // While the database is down, fetch nothing more.
        return databaseGate.isOpen() ? room : room.thenCombine(databaseGate.whenOpen(), (a, b) -> null);
    }

    /** What the consumer has taken and finished, for health, lag and metrics. */
    public ConsumerProgress progress(String consumer) {
        return progress.computeIfAbsent(consumer, name -> new ConsumerProgress());
    }

    /**
     * From now on nothing more is taken: what the channel still delivers, and the batches no worker has begun,
     * stay with what was received and not processed ({@link ReceivedMessages}). A step of {@link GracefulStop}.
     */
    void stopTaking() {
        stopping = true;
    }

    /**
     * Lets the dispatchers run out, at most {@code grace}: the batches being processed finish (or roll back at
     * their transaction timeout), the others end at once. A step of {@link GracefulStop}; returns whether all ran.
     */
    boolean drain(Duration grace) {
        long deadline = System.nanoTime() + grace.toNanos();
        boolean all = true;
        for (BatchDispatcher<Delivery> dispatcher : dispatchers.values()) {
            all &= dispatcher.shutdown(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        }
        return all;
    }

    private TxinboxConfig.Consumer settings(String consumer) {
        // Per message: a plain lookup. Only a running consumer has a channel (ConsumerSetupCheck refuses a
        // switched-off one whose channel is on), so no message reaches here for another.
        TxinboxConfig.Consumer settings = config.consumers().get(consumer);
        if (settings == null) {
            throw new IllegalStateException("no configuration txinbox.consumers." + consumer + ".*");
        }
        return settings;
    }

    private BatchDispatcher<Delivery> dispatcher(String consumer, TxinboxConfig.Consumer settings,
            ConsumerProgress consumerProgress) {
        return dispatchers.computeIfAbsent(consumer, name -> new BatchDispatcher<>(name, settings.parallelism(),
                settings.maxInFlight(), settings.batchSize(), Delivery::orderingKey,
                batch -> processor.process(name, settings, consumerProgress, batch, () -> stopping)));
    }
}
