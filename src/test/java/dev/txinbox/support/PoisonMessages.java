package dev.txinbox.support;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.BiFunction;
import java.util.regex.Pattern;

/**
 * Generates bad messages for the orders consumer, each with the problem its dead letter must name.
 * Every body is one SQS accepts (SQS refuses some characters outright; those never reach a consumer).
 * The test limit for bodies is 32 KiB (ElasticMqResource).
 */
public final class PoisonMessages {

    public static final int MAX_BODY_BYTES = 32_768;

    /** One bad message: its category, body, message attributes and a pattern its recorded error matches. */
    public record Poison(String category, String body, Map<String, String> attributes, Pattern expected) {
    }

    private record Category(String name, BiFunction<Random, String, Poison> make) {
    }

    private PoisonMessages() {
    }

    private static final List<Category> CATEGORIES = List.of(
            new Category("random bytes", PoisonMessages::randomBytes),
            new Category("truncated JSON", PoisonMessages::truncated),
            new Category("nested 10,000 deep", PoisonMessages::deep),
            new Category("duplicate keys", PoisonMessages::duplicateKeys),
            new Category("wrong type", PoisonMessages::wrongType),
            new Category("missing field", PoisonMessages::missingField),
            new Category("number overflow", PoisonMessages::overflow),
            new Category("id too long", PoisonMessages::tooLong),
            new Category("control characters", PoisonMessages::controlCharacters),
            new Category("body over the limit", PoisonMessages::oversized),
            new Category("bad event-id attribute", PoisonMessages::badAttribute));

    /** {@code count} bad messages, the categories in turn, each with a random variant; ids carry {@code tag}. */
    public static List<Poison> generate(Random random, int count, String tag) {
        List<Poison> poisons = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Category category = CATEGORIES.get(i % CATEGORIES.size());
            Poison made = category.make().apply(random, tag + "-" + i);
            poisons.add(new Poison(category.name(), made.body(), made.attributes(), made.expected()));
        }
        return poisons;
    }

    // ------------------------------------------------------------------------------------------ makers

    private static Poison randomBytes(Random random, String id) {
        byte[] bytes = new byte[1 + random.nextInt(2_000)];
        random.nextBytes(bytes);
        String text;
        try {
            // Invalid UTF-8 sequences become U+FFFD, as any client must turn them into characters to send them.
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new IllegalStateException(e);
        }
        String body = sqsSafe(text);
        if (body.isBlank()) {
            body = "\uFFFD" + body;
        }
        return poison(body, "body (is not valid JSON|must be a JSON object|could not be read as JSON)");
    }

    private static Poison truncated(Random random, String id) {
        String whole = valid(id);
        return poison(whole.substring(0, 1 + random.nextInt(whole.length() - 1)), "body is not valid JSON");
    }

    private static Poison deep(Random random, String id) {
        int depth = 10_000 + random.nextInt(2_000);
        boolean objects = random.nextBoolean() && depth * 6 < MAX_BODY_BYTES;
        String nested = objects ? "{\"a\":".repeat(depth) + "1" + "}".repeat(depth) : "[".repeat(depth) + "]".repeat(depth);
        String body = "{\"eventId\":\"" + id + "\",\"type\":\"ORDER_CREATED\",\"aggregateId\":\"bad-" + id
                + "\",\"payload\":" + nested + "}";
        return poison(body, "body is not valid JSON.*nesting depth");
    }

    private static Poison duplicateKeys(Random random, String id) {
        String body = switch (random.nextInt(3)) {
            case 0 -> valid(id).replaceFirst("\\{", "{\"eventId\":\"other-" + id + "\",");
            case 1 -> valid(id).replace("\"amount\":1", "\"amount\":1,\"amount\":2");
            default -> valid(id).replace("\"type\":\"ORDER_CREATED\"", "\"type\":\"ORDER_CREATED\",\"type\":\"ORDER_PAID\"");
        };
        return poison(body, "body is not valid JSON: Duplicate field");
    }

    private static final String[][] WRONG_TYPES = {
            // field in the body, a wrong value, the name the error must give
            { "\"eventId\":\"%s\"", "\"eventId\":12345", "field 'eventId' must be a string" },
            { "\"eventId\":\"%s\"", "\"eventId\":{\"id\":1}", "field 'eventId' must be a string" },
            { "\"type\":\"ORDER_CREATED\"", "\"type\":7", "field 'type' must be a string" },
            { "\"type\":\"ORDER_CREATED\"", "\"type\":[\"ORDER_CREATED\"]", "field 'type' must be a string" },
            { "\"aggregateId\":\"bad-%s\"", "\"aggregateId\":{}", "field 'aggregateId' must be a string" },
            { "\"sequence\":1", "\"sequence\":\"two\"", "field 'sequence' must be a positive 64-bit integer" },
            { "\"sequence\":1", "\"sequence\":1.5", "field 'sequence' must be a positive 64-bit integer" },
            { "\"sequence\":1", "\"sequence\":0", "field 'sequence' must be a positive 64-bit integer" },
            { "\"sequence\":1", "\"sequence\":true", "field 'sequence' must be a positive 64-bit integer" },
            { "\"occurredAt\":\"2026-12-02T10:00:00Z\"", "\"occurredAt\":1733133600", "field 'occurredAt' must be a string" },
            { "\"occurredAt\":\"2026-12-02T10:00:00Z\"", "\"occurredAt\":\"yesterday\"", "field 'occurredAt' must be an ISO-8601 instant" },
            { "\"payload\":{", "\"payload\":[{", "field 'payload'" },
            { "\"amount\":1", "\"amount\":\"100\"", "field 'payload.amount' must be a positive integer" },
            { "\"amount\":1", "\"amount\":true", "field 'payload.amount' must be a positive integer" },
            { "\"amount\":1", "\"amount\":-5", "field 'payload.amount' must be a positive integer" },
            { "\"currency\":\"EUR\"", "\"currency\":978", "field 'payload.currency' must be a string" },
            { "\"currency\":\"EUR\"", "\"currency\":\"EURO\"", "field 'payload.currency' must be an ISO-4217 code" },
            { "\"customerId\":\"c\"", "\"customerId\":[\"c\"]", "field 'payload.customerId' must be a string" },
    };

    private static Poison wrongType(Random random, String id) {
        String[] wrong = WRONG_TYPES[random.nextInt(WRONG_TYPES.length)];
        String body = replaceOnce(valid(id), wrong[0].formatted(id), wrong[1]);
        if (wrong[1].startsWith("\"payload\":[{")) {
            body = body.substring(0, body.length() - 1) + "]}";
        }
        return poison(body, Pattern.quote(wrong[2]));
    }

    private static final String[][] MISSING = {
            { ",\"type\":\"ORDER_CREATED\"", "field 'type' is missing" },
            { ",\"aggregateId\":\"bad-%s\"", "field 'aggregateId' is required when 'sequence' is set" },
            { "\"customerId\":\"c\",", "field 'payload.customerId' is required" },
            { ",\"amount\":1", "field 'payload.amount' is required" },
            { ",\"currency\":\"EUR\"", "field 'payload.currency' is required" },
    };

    private static Poison missingField(Random random, String id) {
        int pick = random.nextInt(MISSING.length + 1);
        if (pick == MISSING.length) {
            return poison(replaceOnce(valid(id), "\"eventId\":\"" + id + "\",", ""), Pattern.quote("field 'eventId' is missing"));
        }
        return poison(replaceOnce(valid(id), MISSING[pick][0].formatted(id), ""), Pattern.quote(MISSING[pick][1]));
    }

    private static Poison overflow(Random random, String id) {
        String huge = switch (random.nextInt(4)) {
            case 0 -> "1e400";
            case 1 -> BigInteger.TWO.pow(70).toString();
            case 2 -> "9223372036854775808";
            default -> "-" + BigInteger.TWO.pow(70);
        };
        return random.nextBoolean()
                ? poison(replaceOnce(valid(id), "\"sequence\":1", "\"sequence\":" + huge),
                        Pattern.quote("field 'sequence' must be a positive 64-bit integer"))
                : poison(replaceOnce(valid(id), "\"amount\":1", "\"amount\":" + huge),
                        Pattern.quote("field 'payload.amount' must be a positive integer"));
    }

    private static Poison tooLong(Random random, String id) {
        return switch (random.nextInt(3)) {
            case 0 -> poison(replaceOnce(valid(id), "\"eventId\":\"" + id + "\"",
                    "\"eventId\":\"" + id + "x".repeat(200 + random.nextInt(5_000)) + "\""),
                    "field 'eventId' must be 1-200 characters");
            case 1 -> poison(replaceOnce(valid(id), "\"aggregateId\":\"bad-" + id + "\"",
                    "\"aggregateId\":\"" + randomLetters(random, 3_000 + random.nextInt(20_000)) + "\""),
                    "field 'aggregateId' must be 1-\\d+ characters");
            default -> poison(replaceOnce(valid(id), "\"type\":\"ORDER_CREATED\"",
                    "\"type\":\"ORDER_CREATED" + randomLetters(random, 1_000 + random.nextInt(10_000)) + "\""),
                    "field 'type' must be 1-\\d+ characters");
        };
    }

    private static Poison controlCharacters(Random random, String id) {
        String control = random.nextBoolean() ? "\\u0000" : "\\u00%02x".formatted(1 + random.nextInt(31));
        return switch (random.nextInt(4)) {
            case 0 -> poison(replaceOnce(valid(id), "\"eventId\":\"" + id + "\"", "\"eventId\":\"" + id + control + "\""),
                    "field 'eventId' must not contain control characters");
            case 1 -> poison(replaceOnce(valid(id), "\"aggregateId\":\"bad-" + id + "\"",
                    "\"aggregateId\":\"bad-" + control + id + "\""), "field 'aggregateId' must not contain control characters");
            case 2 -> poison(replaceOnce(valid(id), "\"type\":\"ORDER_CREATED\"", "\"type\":\"ORDER" + control + "_CREATED\""),
                    "field 'type' must not contain control characters");
            // A raw line break inside a string is not JSON at all.
            default -> poison(replaceOnce(valid(id), "\"customerId\":\"c\"", "\"customerId\":\"c\nd\""),
                    "body is not valid JSON");
        };
    }

    private static Poison oversized(Random random, String id) {
        String start = valid(id);
        // "padding":"", is 13 characters: the body ends 1 to 8 bytes over the limit.
        int padding = MAX_BODY_BYTES - start.length() - 13 + 1 + random.nextInt(8);
        String body = replaceOnce(start, "\"payload\":{", "\"padding\":\"" + "p".repeat(padding) + "\",\"payload\":{");
        return poison(body, "body is \\d+ bytes, larger than the limit of " + MAX_BODY_BYTES + " bytes");
    }

    private static Poison badAttribute(Random random, String id) {
        String body = replaceOnce(valid(id), "\"eventId\":\"" + id + "\",", "");
        return switch (random.nextInt(3)) {
            case 0 -> new Poison(null, body, Map.of("event-id", "  "),
                    Pattern.compile(Pattern.quote("message attribute 'event-id' must be 1-200 characters, got 0")));
            case 1 -> new Poison(null, body, Map.of("event-id", id + "é".repeat(300)),
                    Pattern.compile(Pattern.quote("message attribute 'event-id' must be 1-200 characters")));
            default -> new Poison(null, body, Map.of("event-id", id + "\u007F"),
                    Pattern.compile(Pattern.quote("message attribute 'event-id' must not contain control characters")));
        };
    }

    // ------------------------------------------------------------------------------------------ helpers

    /** A valid ORDER_CREATED of its own order, the base every mutation starts from. */
    private static String valid(String id) {
        return "{\"eventId\":\"" + id + "\",\"type\":\"ORDER_CREATED\",\"aggregateId\":\"bad-" + id
                + "\",\"sequence\":1,\"occurredAt\":\"2026-12-02T10:00:00Z\",\"payload\":{\"customerId\":\"c\",\"amount\":1,"
                + "\"currency\":\"EUR\"}}";
    }

    private static Poison poison(String body, String expected) {
        return new Poison(null, body, Map.of(), Pattern.compile(expected, Pattern.DOTALL));
    }

    private static String replaceOnce(String text, String target, String replacement) {
        int at = text.indexOf(target);
        if (at < 0) {
            throw new IllegalArgumentException("no " + target + " in " + text);
        }
        return text.substring(0, at) + replacement + text.substring(at + target.length());
    }

    private static String randomLetters(Random random, int length) {
        StringBuilder s = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            s.append((char) ('a' + random.nextInt(26)));
        }
        return s.toString();
    }

    /** Drops what SQS refuses in a body: controls other than tab, LF and CR; lone surrogates; U+FFFE/U+FFFF. */
    private static String sqsSafe(String text) {
        StringBuilder s = new StringBuilder(text.length());
        text.codePoints().filter(c -> c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF)
                || (c >= 0xE000 && c <= 0xFFFD) || c >= 0x10000).forEach(s::appendCodePoint);
        return s.toString();
    }
}
