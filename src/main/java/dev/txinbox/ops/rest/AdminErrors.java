package dev.txinbox.ops.rest;

import java.util.Map;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import dev.txinbox.ops.console.ConsoleErrors;

/**
 * Every answer of the admin API is JSON, errors included: a path that matches nothing, a method it does
 * not take, a body it cannot read. The resource's own errors already carry their JSON; anything unexpected
 * is a 500 with a JSON body and a log line, never a stack trace on the wire.
 * <p>
 * These mappers are global, so they also catch what goes wrong under {@code /console}: a person is looking
 * there, and gets the console's own page ({@link ConsoleErrors}) instead.
 */
public class AdminErrors {

    private static final Logger LOG = Logger.getLogger(AdminErrors.class);

    private final ConsoleErrors console;

    public AdminErrors(ConsoleErrors console) {
        this.console = console;
    }

    @ServerExceptionMapper
    public Response webApplication(WebApplicationException e, UriInfo uri) {
        if (ConsoleErrors.answers(uri.getPath())) {
            return console.refused(e);
        }
        Response response = e.getResponse();
        if (response.hasEntity()) {
            return response;
        }
        Response.StatusType status = response.getStatusInfo();
        return json(status.getStatusCode(), status.getReasonPhrase().toLowerCase());
    }

    @ServerExceptionMapper
    public Response unexpected(RuntimeException e, UriInfo uri) {
        if (ConsoleErrors.answers(uri.getPath())) {
            return console.unexpected(e);
        }
        LOG.errorf(e, "admin call failed");
        return json(500, "internal error; see the service log");
    }

    private static Response json(int status, String error) {
        return Response.status(status).type(MediaType.APPLICATION_JSON).entity(Map.of("error", error)).build();
    }
}
