package dev.txinbox.inbox;

import static dev.txinbox.inbox.FailureDecision.Fate.DEAD_LETTER;
import static dev.txinbox.inbox.FailureDecision.Fate.RECORD_ATTEMPT;
import static dev.txinbox.inbox.FailureDecision.Fate.RETRY;
import static dev.txinbox.inbox.FailureDecision.Fate.RETRY_UNCOUNTED;
import static dev.txinbox.inbox.FailureDecision.Mode.FAST;
import static dev.txinbox.inbox.FailureDecision.Mode.LOCATING;
import static dev.txinbox.inbox.FailureDecision.Place.BATCH;
import static dev.txinbox.inbox.FailureDecision.Place.MESSAGE;
import static dev.txinbox.inbox.FailureDecision.Place.PARKED;
import static dev.txinbox.inbox.FailureDecision.Rerun.AGAIN;
import static dev.txinbox.inbox.FailureDecision.Rerun.LOCATE;
import static dev.txinbox.inbox.FailureDecision.Rerun.ONE_BY_ONE;
import static dev.txinbox.inbox.FailureDecision.Rerun.SEND_BACK;
import static dev.txinbox.inbox.FailureDecision.Rerun.WAIT_FOR_DATABASE;
import static dev.txinbox.inbox.FailureDecision.Rerun.WITHOUT_MESSAGE;
import static dev.txinbox.inbox.FailureDecision.Rerun.WITHOUT_PARKED;
import static dev.txinbox.inbox.FailurePolicy.Kind.CONTENTION;
import static dev.txinbox.inbox.FailurePolicy.Kind.OUTAGE;
import static dev.txinbox.inbox.FailurePolicy.Kind.PERMANENT;
import static dev.txinbox.inbox.FailurePolicy.Kind.TRANSIENT;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The failure decision as a table: every row a situation and what it must lead to. */
class FailureDecisionTest {

    // kind, raised by the database, place, mode, batch size, contention reruns so far, failed passes so far -> rerun
    static Stream<Arguments> passes() {
        return Stream.of(
                // The database is away: nobody's fault, nothing counts, consumption pauses.
                Arguments.of(OUTAGE, true, MESSAGE, FAST, 32, 0, 0, WAIT_FOR_DATABASE),
                Arguments.of(OUTAGE, true, BATCH, LOCATING, 1, 3, 3, WAIT_FOR_DATABASE),
                // Two transactions met: again at once, three times, then back to the queue, counting nothing.
                Arguments.of(CONTENTION, true, MESSAGE, FAST, 32, 0, 0, AGAIN),
                Arguments.of(CONTENTION, true, BATCH, LOCATING, 32, 2, 0, AGAIN),
                Arguments.of(CONTENTION, true, BATCH, FAST, 32, 3, 0, SEND_BACK),
                // A handler's own failure names its message: the batch goes on without it.
                Arguments.of(TRANSIENT, false, MESSAGE, FAST, 32, 0, 0, WITHOUT_MESSAGE),
                Arguments.of(PERMANENT, false, MESSAGE, FAST, 32, 0, 2, WITHOUT_MESSAGE),
                Arguments.of(TRANSIENT, false, PARKED, FAST, 32, 0, 0, WITHOUT_PARKED),
                // A database error inside a handler may be an earlier message's write, flushed there: locate it.
                Arguments.of(TRANSIENT, true, MESSAGE, FAST, 32, 0, 0, LOCATE),
                Arguments.of(PERMANENT, true, PARKED, FAST, 32, 0, 0, LOCATE),
                // Located (every write flushed where it was made), it names its message.
                Arguments.of(TRANSIENT, true, MESSAGE, LOCATING, 32, 0, 0, WITHOUT_MESSAGE),
                Arguments.of(PERMANENT, true, PARKED, LOCATING, 32, 0, 1, WITHOUT_PARKED),
                // The batch's one flush, its own statements or its commit: first locate, then one by one.
                Arguments.of(TRANSIENT, true, BATCH, FAST, 32, 0, 0, LOCATE),
                Arguments.of(PERMANENT, true, BATCH, FAST, 1, 0, 0, LOCATE),
                Arguments.of(TRANSIENT, true, BATCH, LOCATING, 32, 0, 0, ONE_BY_ONE),
                // A batch of one that fails on its own statements: its message is the one at fault.
                Arguments.of(TRANSIENT, true, BATCH, LOCATING, 1, 0, 0, WITHOUT_MESSAGE),
                // Many failures in one batch: stop paying a whole pass for each.
                Arguments.of(TRANSIENT, false, MESSAGE, FAST, 32, 0, 3, ONE_BY_ONE),
                Arguments.of(TRANSIENT, true, PARKED, LOCATING, 32, 0, 3, ONE_BY_ONE));
    }

    @ParameterizedTest(name = "{0}, database {1}, {2}, {3}, {4} messages, {5} contention reruns, {6} failed passes -> {7}")
    @MethodSource("passes")
    void afterAFailedPass(FailurePolicy.Kind kind, boolean database, FailureDecision.Place place, FailureDecision.Mode mode,
            int size, int contentions, int failedPasses, FailureDecision.Rerun expected) {
        assertEquals(expected, FailureDecision.afterFailedPass(kind, database, place, mode, size, contentions, failedPasses));
    }

    static Stream<Arguments> messages() {
        return Stream.of(
                Arguments.of(PERMANENT, DEAD_LETTER),
                Arguments.of(OUTAGE, FailureDecision.Fate.WAIT_FOR_DATABASE),
                Arguments.of(CONTENTION, RETRY_UNCOUNTED),
                Arguments.of(TRANSIENT, RECORD_ATTEMPT));
    }

    @ParameterizedTest(name = "a message failed ({0}) -> {1}")
    @MethodSource("messages")
    void aFailedMessage(FailurePolicy.Kind kind, FailureDecision.Fate expected) {
        assertEquals(expected, FailureDecision.ofFailedMessage(kind));
    }

    static Stream<Arguments> attempts() {
        return Stream.of(Arguments.of(1, 5, RETRY), Arguments.of(4, 5, RETRY), Arguments.of(5, 5, DEAD_LETTER),
                Arguments.of(6, 5, DEAD_LETTER), Arguments.of(1, 1, DEAD_LETTER));
    }

    @ParameterizedTest(name = "attempt {0} of {1} -> {2}")
    @MethodSource("attempts")
    void afterAnAttempt(int attempts, int max, FailureDecision.Fate expected) {
        assertEquals(expected, FailureDecision.afterAttempt(attempts, max));
    }

    static Stream<Arguments> recordings() {
        return Stream.of(
                Arguments.of(OUTAGE, FailureDecision.Fate.WAIT_FOR_DATABASE),
                Arguments.of(PERMANENT, DEAD_LETTER),
                Arguments.of(CONTENTION, RETRY_UNCOUNTED),
                Arguments.of(TRANSIENT, RETRY_UNCOUNTED));
    }

    @ParameterizedTest(name = "recording the attempt failed too ({0}) -> {1}")
    @MethodSource("recordings")
    void whenRecordingTheAttemptFails(FailurePolicy.Kind kind, FailureDecision.Fate expected) {
        assertEquals(expected, FailureDecision.whenRecordingFailed(kind));
    }
}
