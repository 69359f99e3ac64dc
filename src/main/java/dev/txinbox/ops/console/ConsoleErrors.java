package dev.txinbox.ops.console;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * What the console shows when a page cannot be what was asked for: always a page with the status, never the
 * admin API's JSON and never a stack trace. The global mappers send console paths here ({@link #answers}).
 */
@ApplicationScoped
public class ConsoleErrors {

    private static final Logger LOG = Logger.getLogger(ConsoleErrors.class);

    private final ConsoleRequest request;

    public ConsoleErrors(ConsoleRequest request) {
        this.request = request;
    }

    /** Whether an error on this request path is the console's to show. */
    public static boolean answers(String path) {
        return ConsoleFilter.isConsole(path);
    }

    @ServerExceptionMapper
    public Response problem(ConsoleProblem problem) {
        return ConsoleFilter.html(problem.status, ConsoleTemplates.problem(request.session() == null ? null
                : request.chrome(problem.title, ""), problem.title, problem.getMessage(), "/console").render());
    }

    /** What JAX-RS itself refuses (a method not allowed, a body it cannot read), as a page with its status. */
    public Response refused(WebApplicationException e) {
        Response.StatusType status = e.getResponse().getStatusInfo();
        Response.Status known = Response.Status.fromStatusCode(status.getStatusCode());
        return ConsoleFilter.html(known == null ? Response.Status.BAD_REQUEST : known,
                ConsoleTemplates.problem(null, status.getReasonPhrase(), "The console cannot answer this request ("
                        + status.getStatusCode() + " " + status.getReasonPhrase() + ").", "/console").render());
    }

    public Response unexpected(RuntimeException e) {
        LOG.errorf(e, "console page failed");
        return ConsoleFilter.html(Response.Status.INTERNAL_SERVER_ERROR, ConsoleTemplates.problem(null,
                "Something went wrong", "The page failed; the service log has the details.", "/console").render());
    }
}
