package dev.txinbox.inbox;

/**
 * A permanent error: the message can never be processed as it is (not JSON, a missing field, an
 * unknown type, an invalid payload). Retrying would only delay the dead-letter queue, so the
 * failure policy sends it there at once. The message says what is wrong and where, for operators.
 */
public class InvalidMessageException extends RuntimeException {

    public InvalidMessageException(String message) {
        super(message);
    }
}
