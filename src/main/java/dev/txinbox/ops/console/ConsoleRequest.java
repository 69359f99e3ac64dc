package dev.txinbox.ops.console;

import jakarta.enterprise.context.RequestScoped;

/** The session of the request being served, found by {@link ConsoleFilter} before the resource runs. */
@RequestScoped
public class ConsoleRequest {

    private ConsoleSessions.Session session;

    void signedIn(ConsoleSessions.Session session) {
        this.session = session;
    }

    /** The caller's session; only null on the sign-in page, the one page open without one. */
    public ConsoleSessions.Session session() {
        return session;
    }
}
