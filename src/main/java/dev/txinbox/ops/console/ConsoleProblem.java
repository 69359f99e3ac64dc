package dev.txinbox.ops.console;

import jakarta.ws.rs.core.Response;

/**
 * An answer other than the page asked for: bad input, a refusal, something missing. Thrown by a page or an
 * action, shown by {@link ConsoleErrors} as a page with its status and the reason in words.
 */
final class ConsoleProblem extends RuntimeException {

    final Response.Status status;
    final String title;

    ConsoleProblem(Response.Status status, String title, String message) {
        super(message, null, false, false);
        this.status = status;
        this.title = title;
    }

    static ConsoleProblem notFound(String title, String message) {
        return new ConsoleProblem(Response.Status.NOT_FOUND, title, message);
    }
}
