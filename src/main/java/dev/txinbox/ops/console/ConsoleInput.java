package dev.txinbox.ops.console;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.core.Response;

import dev.txinbox.ops.admin.AdminInput;
import dev.txinbox.ops.admin.InboxRepairs;

/**
 * A page's parameters, read with the admin API's rules ({@link AdminInput}); what they refuse becomes a 400
 * page in their own words, an unknown consumer a 404 page.
 */
@ApplicationScoped
class ConsoleInput {

    private final InboxRepairs operations;

    ConsoleInput(InboxRepairs operations) {
        this.operations = operations;
    }

    String knownConsumer(String consumer) {
        String name = input(() -> AdminInput.id("consumer", consumer));
        if (operations.consumer(name).isEmpty()) {
            throw ConsoleProblem.notFound("No such consumer", "There is no consumer " + name + ".");
        }
        return name;
    }

    /** The value {@code check} returns, or a 400 page with the check's own words when it refuses the input. */
    static <T> T input(Supplier<T> check) {
        try {
            return check.get();
        } catch (IllegalArgumentException e) {
            throw new ConsoleProblem(Response.Status.BAD_REQUEST, "Bad input", e.getMessage());
        }
    }

    /** An ISO-8601 instant, or what a datetime-local field sends (taken as UTC, as the page says). */
    static Instant instant(String name, String value) {
        try {
            return AdminInput.instant(name, value.strip());
        } catch (IllegalArgumentException e) {
            try {
                return LocalDateTime.parse(value.strip()).toInstant(ZoneOffset.UTC);
            } catch (DateTimeParseException again) {
                throw e;
            }
        }
    }

    static boolean blank(String value) {
        return value == null || value.isBlank();
    }
}
