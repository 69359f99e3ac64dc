package dev.txinbox.harness;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * The end of a run, for both suites: the moment nothing is left to happen, so that what PostgreSQL and the
 * dead-letter queue hold can be held against the oracle. Quiescent means, all at once:
 * <ul>
 * <li>the source queue is empty: no message visible, in flight (received, not yet deleted or handed back)
 * or delayed ({@link Sqs#depth});</li>
 * <li>every event of the stream is PROCESSED in the inbox (rows PROCESSED before the stream, a warm-up's or
 * pre-loaded history, are {@code alreadyProcessed} and left out of the count);</li>
 * <li>the dead-letter queue holds at least as many messages as the stream has poison;</li>
 * <li>and all three read the same again {@link #SETTLE} later: a late delete, dead letter or redelivery
 * starts the wait over.</li>
 * </ul>
 * While messages wait only SQS is asked: counting inbox rows costs PostgreSQL CPU, which a measured run
 * would be billed for. If nothing moves for {@link #STALL}, the wait ends unquiet and says what it saw (the
 * oracle check then says what is missing); a service instance that dies on its own ends it with an
 * exception.
 *
 * @param database the run's database, counted with {@link Db#processedRows}
 */
public record Quiescence(Sqs sqs, String queueUrl, String dlqUrl, String database, Oracle oracle,
        long alreadyProcessed) {

    /** How long the condition must keep holding before the verdict counts. */
    public static final Duration SETTLE = Duration.ofSeconds(2);
    /** With nothing moving for this long, the wait gives up. */
    public static final Duration STALL = Duration.ofMinutes(3);
    private static final long POLL_MILLIS = 250;

    /**
     * What the caller takes the moment the condition holds, before the settle: the end of a measured window,
     * which two idle seconds would otherwise stretch. Taken again if the settle finds that something moved.
     */
    @FunctionalInterface
    public interface Moment {
        void reached() throws Exception;
    }

    /** One look: the queue's depth, the dead-letter queue's, and the stream's PROCESSED rows (-1: not counted). */
    private record State(long depth, long deadLetters, long processed) {
    }

    /** Waits for quiescence; {@code say} gets the stall, if there is one. True if quiescent, false if stalled. */
    public boolean await(List<Service> services, Consumer<String> say) throws Exception {
        return await(services, say, () -> {
        });
    }

    /** {@link #await(List, Consumer)}, calling {@code reached} whenever the condition holds, before the settle. */
    public boolean await(List<Service> services, Consumer<String> say, Moment reached) throws Exception {
        State last = null;
        long lastChange = System.currentTimeMillis();
        while (true) {
            State now = look();
            if (quiescent(now)) {
                reached.reached();
                Thread.sleep(SETTLE.toMillis());
                State later = look();
                if (later.equals(now)) {
                    return true;
                }
                now = later; // something moved after all: that is progress, and the wait goes on
            }
            if (!now.equals(last)) {
                last = now;
                lastChange = System.currentTimeMillis();
            } else if (System.currentTimeMillis() - lastChange > STALL.toMillis()) {
                say.accept(String.format("no progress for %d minutes: queue %d, dead letters %d of %d, processed %s of %d",
                        STALL.toMinutes(), now.depth, now.deadLetters, oracle.poisonMessages(),
                        now.processed < 0 ? "(not counted)" : Long.toString(now.processed), oracle.events()));
                return false;
            }
            Service.requireAlive(services);
            Thread.sleep(POLL_MILLIS);
        }
    }

    private State look() {
        long depth = sqs.depth(queueUrl);
        long deadLetters = sqs.depth(dlqUrl);
        long rows = depth > 0 ? -1 : Db.processedRows(database);
        return new State(depth, deadLetters, rows < 0 ? -1 : rows - alreadyProcessed);
    }

    private boolean quiescent(State s) {
        return s.depth == 0 && s.processed >= 0 && s.processed >= oracle.events() && s.deadLetters >= oracle.poisonMessages();
    }
}
