package dev.txinbox.ops.console;

import java.net.URI;
import java.net.URL;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;

import dev.txinbox.support.Browser;
import dev.txinbox.support.ServiceTest;
import io.quarkus.test.common.http.TestHTTPResource;

/**
 * What the console's scenarios share: a real Chromium per test class, every test starting signed out, and
 * the operator's moves (sign in, find who the session is in the audit, call a page without the browser).
 * Each console resource has its scenario class; screenshots of every page go to target/console-screenshots/.
 */
abstract class ConsoleSupport extends ServiceTest {

    static final String TOKEN = "test-admin-token";
    static Browser browser;

    @TestHTTPResource("/")
    URL root;

    ChromeDriver driver;
    final HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    @BeforeAll
    static void startBrowser() {
        browser = Browser.start();
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            browser.close();
            browser = null;
        }
    }

    @BeforeEach
    void signedOut() {
        driver = browser.driver();
        browser.open(url("/console/sign-in"));
        driver.manage().deleteAllCookies();
    }

    /** The console's clock, set by the test. */
    static class MovableClock extends ConsoleClock {
        volatile Instant now;

        MovableClock(Instant now) {
            this.now = now;
        }

        @Override
        public Instant now() {
            return now;
        }
    }

    void signIn() {
        browser.open(url("/console/sign-in"));
        browser.element(By.id("token")).sendKeys(TOKEN);
        browser.follow(browser.element(By.id("sign-in")));
        browser.waiting().until(d -> d.getCurrentUrl().endsWith("/console"));
    }

    /** Who this browser's session is in the audit. */
    String actor() {
        return "console " + browser.element(By.id("session")).getText();
    }

    String sessionCookie() {
        return ConsoleSessions.COOKIE + "=" + driver.manage().getCookieNamed(ConsoleSessions.COOKIE).getValue();
    }

    WebElement entryRow(String messageId) {
        return browser.element(By.cssSelector("#entries tr[data-message-id='" + messageId + "']"));
    }

    String url(String path) {
        return root.toString().replaceAll("/$", "") + path;
    }

    HttpResponse<String> get(String path, String cookie) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url(path))).GET();
        if (cookie != null) {
            request.header("Cookie", cookie);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path, Map<String, String> form, String cookie) {
        String body = form.entrySet().stream().map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8)).collect(Collectors.joining("&"));
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url(path)))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (cookie != null) {
            request.header("Cookie", cookie);
        }
        try {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
