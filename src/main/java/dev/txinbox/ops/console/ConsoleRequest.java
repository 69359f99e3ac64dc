package dev.txinbox.ops.console;

import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;

/** The session of the request being served, found by {@link ConsoleFilter} before the resource runs. */
@RequestScoped
public class ConsoleRequest {

    private static final Logger LOG = Logger.getLogger(ConsoleRequest.class);

    private final ConsoleClock clock;
    private ConsoleSessions.Session session;

    public ConsoleRequest(ConsoleClock clock) {
        this.clock = clock;
    }

    void signedIn(ConsoleSessions.Session session) {
        this.session = session;
    }

    /** The caller's session; only null on the sign-in page, the one page open without one. */
    public ConsoleSessions.Session session() {
        return session;
    }

    /** The frame of a page: its title, the active tab, and who is signed in (with the token its forms carry). */
    ConsoleViews.Chrome chrome(String title, String nav) {
        return new ConsoleViews.Chrome(title, nav, session == null ? null : session.label(),
                session == null ? null : session.csrf(), ConsoleViews.time(clock.now()));
    }

    /** The session of a form's POST, if the form carries its CSRF token; a 403 page otherwise. */
    ConsoleSessions.Session formSession(String csrf) {
        if (session == null || !ConsoleSessions.csrfMatches(session, csrf)) {
            LOG.warnf("console form refused: %s CSRF token", csrf == null || csrf.isEmpty() ? "no" : "a wrong");
            throw new ConsoleProblem(Response.Status.FORBIDDEN, "Refused: not a form of this session",
                    "The form did not carry this session's CSRF token, so it may not have come from the console"
                            + " (or it is from a session that has ended). Nothing was changed. Go back, reload the"
                            + " page and submit it again.");
        }
        return session;
    }
}
