package dev.txinbox.support;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * What EKS and IAM give a pod, as small as a test can make it, on one local port: STS's
 * {@code AssumeRoleWithWebIdentity} (IRSA; the SDK is pointed here by {@code AWS_ENDPOINT_URL_STS}), EKS Pod
 * Identity's container credentials endpoint ({@code AWS_CONTAINER_CREDENTIALS_FULL_URI}), and, in front of the real
 * broker (ElasticMQ), SQS's check of the caller's credentials: a request signed with keys this stand-in did not issue,
 * or that have expired, is refused as SQS refuses it, and an action can be made to answer with SQS's throttling errors;
 * every other call goes through to the broker. It proves the service's wiring, not STS: signatures are not verified,
 * only whose keys signed.
 */
public final class AwsStandIn implements AutoCloseable {

    public static final String POD_IDENTITY_PATH = "/v1/credentials";
    private static final Pattern CREDENTIAL = Pattern.compile("Credential=([^/]+)/");

    /** One set of credentials handed out. */
    public record Issued(String accessKeyId, String secret, String sessionToken, Instant expiration) {
    }

    /** One {@code AssumeRoleWithWebIdentity} or container-endpoint call, with what the caller presented. */
    public record Asked(String roleArn, String token) {
    }

    private final HttpServer server;
    private final HttpClient http = HttpClient.newHttpClient();
    private final String broker;
    private final Map<String, Issued> issued = new ConcurrentHashMap<>();
    private final List<Asked> asked = new CopyOnWriteArrayList<>();
    private final Map<String, Set<String>> keysByAction = new ConcurrentHashMap<>();
    private final List<String> refusedSqsCalls = new CopyOnWriteArrayList<>();
    private final AtomicInteger serial = new AtomicInteger();
    private volatile Duration lifetime = Duration.ofHours(1);
    private volatile String refusal;
    /** SQS actions answered with a throttling error, by the error code to answer. */
    private volatile Map<String, String> throttled = Map.of();
    private final Map<String, AtomicInteger> throttledCalls = new ConcurrentHashMap<>();
    /** The next ReceiveMessage waits on this before it is passed on: a receive loop stuck in its call. */
    private final AtomicReference<CountDownLatch> heldReceive = new AtomicReference<>();

    public AwsStandIn(String brokerEndpoint) throws IOException {
        this.broker = brokerEndpoint;
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::handle);
        server.setExecutor(Executors.newFixedThreadPool(8));
        server.start();
    }

    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** How long the credentials handed out from now on last. */
    public void lifetime(Duration lifetime) {
        this.lifetime = lifetime;
    }

    /** From now on refuse to hand out credentials with this STS error code ({@code null}: hand them out). */
    public void refuse(String errorCode) {
        this.refusal = errorCode;
    }

    /**
     * From now on answer these SQS actions (e.g. {@code ReceiveMessage}) with the throttling error code given
     * ({@code RequestThrottled}, {@code KmsThrottled} …) instead of passing them on; an empty map lifts it.
     */
    public void throttle(Map<String, String> codeByAction) {
        this.throttled = Map.copyOf(codeByAction);
    }

    /**
     * Holds the next ReceiveMessage, unanswered, until the returned latch is counted down (at most 90 s), as a
     * connection that stopped answering would: the receive loop that sent it is stuck in its call.
     */
    public CountDownLatch holdNextReceive() {
        CountDownLatch release = new CountDownLatch(1);
        heldReceive.set(release);
        return release;
    }

    /** How many calls of an action were answered with a throttling error. */
    public int throttledCalls(String action) {
        return throttledCalls.getOrDefault(action, new AtomicInteger()).get();
    }

    public List<Asked> asked() {
        return List.copyOf(asked);
    }

    public Map<String, Issued> issued() {
        return Map.copyOf(issued);
    }

    /** The access key ids that signed the SQS calls of an action (e.g. {@code ReceiveMessage}) SQS accepted. */
    public Set<String> keysUsedFor(String action) {
        return Set.copyOf(keysByAction.getOrDefault(action, Set.of()));
    }

    public List<String> refusedSqsCalls() {
        return List.copyOf(refusedSqsCalls);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String target = exchange.getRequestHeaders().getFirst("X-Amz-Target");
            if (target != null && target.startsWith("AmazonSQS.")) {
                sqs(exchange, target.substring("AmazonSQS.".length()));
            } else if (exchange.getRequestURI().getPath().equals(POD_IDENTITY_PATH)) {
                podIdentity(exchange);
            } else {
                sts(exchange);
            }
        }
    }

    private void sts(HttpExchange exchange) throws IOException {
        Map<String, String> form = form(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
        if (!"AssumeRoleWithWebIdentity".equals(form.get("Action"))) {
            reply(exchange, 400, "text/xml", stsError("InvalidAction", "not served here: " + form.get("Action")));
            return;
        }
        asked.add(new Asked(form.get("RoleArn"), form.get("WebIdentityToken")));
        String refused = refusal;
        if (refused != null) {
            reply(exchange, refused.equals("AccessDenied") ? 403 : 400, "text/xml", stsError(refused,
                    refused.equals("AccessDenied") ? "Not authorized to perform sts:AssumeRoleWithWebIdentity"
                            : "The web identity token that was passed is expired or is not valid"));
            return;
        }
        Issued credentials = issue();
        reply(exchange, 200, "text/xml", """
                <AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
                  <AssumeRoleWithWebIdentityResult>
                    <Credentials><AccessKeyId>%s</AccessKeyId><SecretAccessKey>%s</SecretAccessKey>
                      <SessionToken>%s</SessionToken><Expiration>%s</Expiration></Credentials>
                    <SubjectFromWebIdentityToken>system:serviceaccount:txinbox:txinbox</SubjectFromWebIdentityToken>
                    <AssumedRoleUser><AssumedRoleId>AROATEST:txinbox</AssumedRoleId>
                      <Arn>arn:aws:sts::000000000000:assumed-role/txinbox/txinbox</Arn></AssumedRoleUser>
                  </AssumeRoleWithWebIdentityResult>
                  <ResponseMetadata><RequestId>%s</RequestId></ResponseMetadata>
                </AssumeRoleWithWebIdentityResponse>""".formatted(credentials.accessKeyId(), credentials.secret(),
                credentials.sessionToken(), credentials.expiration(), credentials.accessKeyId()));
    }

    private void podIdentity(HttpExchange exchange) throws IOException {
        asked.add(new Asked(null, exchange.getRequestHeaders().getFirst("Authorization")));
        if (refusal != null) {
            reply(exchange, 403, "application/json", "{\"code\":\"" + refusal + "\",\"message\":\"refused\"}");
            return;
        }
        Issued credentials = issue();
        reply(exchange, 200, "application/json", """
                {"AccessKeyId":"%s","SecretAccessKey":"%s","Token":"%s","Expiration":"%s"}""".formatted(
                credentials.accessKeyId(), credentials.secret(), credentials.sessionToken(), credentials.expiration()));
    }

    private void sqs(HttpExchange exchange, String action) throws IOException {
        String authorization = String.valueOf(exchange.getRequestHeaders().getFirst("Authorization"));
        Matcher key = CREDENTIAL.matcher(authorization);
        Issued credentials = key.find() ? issued.get(key.group(1)) : null;
        String token = exchange.getRequestHeaders().getFirst("X-Amz-Security-Token");
        String why = credentials == null ? "UnrecognizedClientException"
                : !credentials.sessionToken().equals(token) ? "InvalidClientTokenId"
                        : Instant.now().isAfter(credentials.expiration()) ? "ExpiredTokenException" : null;
        if (why != null) {
            refusedSqsCalls.add(action + " " + why + " " + authorization);
            reply(exchange, 400, "application/x-amz-json-1.0", "{\"__type\":\"com.amazon.coral.service#" + why
                    + "\",\"message\":\"The security token included in the request is invalid or expired\"}");
            return;
        }
        String throttling = throttled.get(action);
        if (throttling != null) {
            throttledCalls.computeIfAbsent(action, a -> new AtomicInteger()).incrementAndGet();
            exchange.getResponseHeaders().set("x-amzn-query-error", throttling + ";Sender");
            reply(exchange, 400, "application/x-amz-json-1.0", "{\"__type\":\"com.amazonaws.sqs#" + throttling
                    + "\",\"message\":\"Rate exceeded\"}");
            return;
        }
        CountDownLatch hold = action.equals("ReceiveMessage") ? heldReceive.getAndSet(null) : null;
        if (hold != null) {
            try {
                hold.await(90, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        keysByAction.computeIfAbsent(action, a -> ConcurrentHashMap.newKeySet()).add(credentials.accessKeyId());
        byte[] body;
        try (InputStream in = exchange.getRequestBody()) {
            body = in.readAllBytes();
        }
        HttpRequest.Builder forward = HttpRequest.newBuilder(URI.create(broker + exchange.getRequestURI()))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        for (String header : List.of("Content-Type", "X-Amz-Target", "Authorization", "X-Amz-Date")) {
            String value = exchange.getRequestHeaders().getFirst(header);
            if (value != null) {
                forward.header(header, value);
            }
        }
        try {
            HttpResponse<byte[]> answer = http.send(forward.build(), HttpResponse.BodyHandlers.ofByteArray());
            answer.headers().map().forEach((name, values) -> {
                if (name.equalsIgnoreCase("content-type") || name.toLowerCase().startsWith("x-amz")) {
                    exchange.getResponseHeaders().put(name, values);
                }
            });
            exchange.sendResponseHeaders(answer.statusCode(), answer.body().length == 0 ? -1 : answer.body().length);
            exchange.getResponseBody().write(answer.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private Issued issue() {
        int n = serial.incrementAndGet();
        Issued credentials = new Issued(String.format("ASIATESTSTANDIN%05d", n), "secret-" + n, "session-token-" + n,
                Instant.now().plus(lifetime).truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
        issued.put(credentials.accessKeyId(), credentials);
        return credentials;
    }

    private static String stsError(String code, String message) {
        return "<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><Error><Type>Sender</Type><Code>"
                + code + "</Code><Message>" + message + "</Message></Error><RequestId>r</RequestId></ErrorResponse>";
    }

    private static Map<String, String> form(String body) {
        Map<String, String> form = new HashMap<>();
        for (String pair : body.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                form.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return form;
    }

    private static void reply(HttpExchange exchange, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
