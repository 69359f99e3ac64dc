package dev.txinbox.ops.admin;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;

import dev.txinbox.inbox.EventParser;
import dev.txinbox.inbox.InboxStatus;

/**
 * The rules for operator input, shared by the admin API and the console: each throws
 * {@link IllegalArgumentException} with a message that says what to fix, which the caller turns into its
 * own kind of 400 (JSON for the API, a page for the console).
 */
public final class AdminInput {

    public static final int MAX_ID_LENGTH = EventParser.MAX_EVENT_ID_LENGTH;

    private AdminInput() {
    }

    /** An id (consumer, event id, failure group): 1-200 characters, none of them control characters. */
    public static String id(String name, String value) {
        return checked(name, value, MAX_ID_LENGTH);
    }

    /** An aggregate id: as long as the reader accepts one (512 characters), or a stream could not be named. */
    public static String aggregateId(String name, String value) {
        return checked(name, value, EventParser.MAX_AGGREGATE_ID_LENGTH);
    }

    private static String checked(String name, String value, int maxLength) {
        if (value == null || value.isBlank() || value.length() > maxLength) {
            throw new IllegalArgumentException(name + " must be 1-" + maxLength + " characters");
        }
        if (value.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException(name + " must not contain control characters");
        }
        return value;
    }

    /** A whole number in range (parsed here: a parameter JAX-RS failed to convert would be a bare 404). */
    public static int number(String name, String value, int min, int max) {
        try {
            int n = Integer.parseInt(value.strip());
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException | NullPointerException e) {
            // falls through to the same answer
        }
        throw new IllegalArgumentException(name + " must be a whole number from " + min + " to " + max);
    }

    public static InboxStatus status(String value) {
        try {
            return InboxStatus.valueOf(value.toUpperCase());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("status must be one of " + List.of(InboxStatus.values()));
        }
    }

    public static Instant instant(String name, String value) {
        try {
            return Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(name + " must be an ISO-8601 instant such as 2026-12-02T10:00:00Z");
        }
    }
}
