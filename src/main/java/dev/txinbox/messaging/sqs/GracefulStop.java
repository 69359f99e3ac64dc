package dev.txinbox.messaging.sqs;

import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import io.quarkus.runtime.ShutdownEvent;
import dev.txinbox.messaging.CallsInFlight;
import dev.txinbox.messaging.DatabaseGate;

/**
 * The graceful stop, on SIGTERM, before the database and SQS clients close. Its steps, in this order:
 * <ol>
 * <li><b>Stop receiving</b>: no receive asks SQS for messages any more; a long poll that answers later keeps
 * its messages from the connector, noted among those received and not processed.</li>
 * <li><b>Stop taking</b>: what the channel still delivers, and the batches no worker has begun, are left
 * there too.</li>
 * <li><b>Open the database gate</b>: workers waiting for the database go on, and leave their batch.</li>
 * <li><b>Let the batches in progress finish</b> (at most 20 s): they commit
 * (or roll back at their transaction timeout) and are settled.</li>
 * <li><b>Wait for the settlement's calls</b> (deletes, releases; at most 5 s).</li>
 * <li><b>Hand back</b> what was received and not processed: visible again at once, for another instance or
 * the next start, rather than after a whole visibility timeout.</li>
 * <li><b>Wait for the receives in flight</b> (a long poll lasts up to its wait time, 20 s at most on SQS), then
 * <b>hand back</b> what they brought.</li>
 * <li><b>Close the queues' calls</b> (a statistics refresh, an operator's redrive), waiting for those in flight
 * (at most 5 s): their answers complete on the event loop, which closes after the stop.</li>
 * </ol>
 * Every wait is on a {@link CallsInFlight}, with a deadline; the pod's grace period
 * bounds the whole.
 */
@ApplicationScoped
public class GracefulStop {

    private static final Logger LOG = Logger.getLogger(GracefulStop.class);
    private static final Duration BATCHES_GRACE = Duration.ofSeconds(20);
    private static final Duration CALLS_GRACE = Duration.ofSeconds(5);
    /** A long poll lasts up to its wait time (20 s at most on SQS); the pod's grace period bounds the rest. */
    private static final Duration RECEIVE_GRACE = Duration.ofSeconds(21);

    private final SqsConnectivity connectivity;
    private final SqsInboxReceiver receiver;
    private final DatabaseGate databaseGate;
    private final SettlementCalls calls;
    private final ReceivedMessages received;
    private final SqsQueues queues;

    public GracefulStop(SqsConnectivity connectivity, SqsInboxReceiver receiver, DatabaseGate databaseGate,
            SettlementCalls calls, ReceivedMessages received, SqsQueues queues) {
        this.connectivity = connectivity;
        this.receiver = receiver;
        this.databaseGate = databaseGate;
        this.calls = calls;
        this.received = received;
        this.queues = queues;
    }

    void onShutdown(@Observes ShutdownEvent event) {
        try {
            stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warn("the graceful stop was interrupted; what was not handed back returns after its visibility timeout");
        }
    }

    /** The steps above, in their order. */
    void stop() throws InterruptedException {
        connectivity.stopReceiving();
        receiver.stopTaking();
        databaseGate.shutdown();
        LOG.infof("stopping: messages being processed finish, the others go back to their queue");
        receiver.drain(BATCHES_GRACE);
        if (!calls.flush(CALLS_GRACE)) {
            LOG.warnf("SQS calls still unanswered after %s; their messages come back and are recognised", CALLS_GRACE);
        }
        handBack();
        if (!connectivity.awaitNoReceives(RECEIVE_GRACE)) {
            LOG.warnf("a receive was still in flight after %d s; its messages return after their visibility timeout",
                    RECEIVE_GRACE.toSeconds());
        }
        handBack();
        if (!queues.close(CALLS_GRACE)) {
            LOG.warnf("an SQS call (queue depth, redrive) was still unanswered after %d s; stopping anyway",
                    CALLS_GRACE.toSeconds());
        }
    }

    private void handBack() throws InterruptedException {
        int handedBack = calls.handBack(received, CALLS_GRACE);
        if (handedBack > 0) {
            LOG.infof("handed %d received but unprocessed messages back to their queue", handedBack);
        }
    }
}
