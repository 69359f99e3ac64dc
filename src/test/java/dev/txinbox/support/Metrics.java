package dev.txinbox.support;

import static io.restassured.RestAssured.given;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads the service's Prometheus endpoint as a scraper would. */
public final class Metrics {

    private Metrics() {
    }

    public static String scrape() {
        return given().get("/q/metrics").then().statusCode(200).extract().asString();
    }

    /** {@code txinbox_messages_total{consumer,outcome}}, 0 when not yet counted. */
    public static double outcomes(String consumer, String outcome) {
        Pattern line = Pattern.compile("^txinbox_messages_total\\{(?=[^}]*consumer=\"" + Pattern.quote(consumer)
                + "\")(?=[^}]*outcome=\"" + Pattern.quote(outcome) + "\")[^}]*\\} (\\S+)$", Pattern.MULTILINE);
        Matcher m = line.matcher(scrape());
        return m.find() ? Double.parseDouble(m.group(1)) : 0.0;
    }

    /** A series with one label, 0 when not yet counted. */
    public static double value(String name, String label, String labelValue) {
        Pattern line = Pattern.compile("^" + Pattern.quote(name) + "\\{(?=[^}]*" + Pattern.quote(label) + "=\""
                + Pattern.quote(labelValue) + "\")[^}]*\\} (\\S+)$", Pattern.MULTILINE);
        Matcher m = line.matcher(scrape());
        return m.find() ? Double.parseDouble(m.group(1)) : 0.0;
    }
}
