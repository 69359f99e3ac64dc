package dev.txinbox.ops.rest;

import java.util.Map;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * Every answer of the admin API is JSON, errors included: a path that matches nothing, a method it does
 * not take, a body it cannot read. The resource's own errors already carry their JSON; anything unexpected
 * is a 500 with a JSON body and a log line, never a stack trace on the wire.
 */
public class AdminErrors {

    private static final Logger LOG = Logger.getLogger(AdminErrors.class);

    @ServerExceptionMapper
    public Response webApplication(WebApplicationException e) {
        Response response = e.getResponse();
        if (response.hasEntity()) {
            return response;
        }
        Response.StatusType status = response.getStatusInfo();
        return json(status.getStatusCode(), status.getReasonPhrase().toLowerCase());
    }

    @ServerExceptionMapper
    public Response unexpected(RuntimeException e) {
        LOG.errorf(e, "admin call failed");
        return json(500, "internal error; see the service log");
    }

    private static Response json(int status, String error) {
        return Response.status(status).type(MediaType.APPLICATION_JSON).entity(Map.of("error", error)).build();
    }
}
