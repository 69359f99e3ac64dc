package dev.txinbox.support;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.openqa.selenium.By;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * A real, headless Chromium driven through chromedriver: Debian's {@code chromium} and {@code chromium-driver}
 * packages, never a download. Missing, they fail the test that needs them, saying how to install them.
 */
public final class Browser implements AutoCloseable {

    public static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    public static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path SCREENSHOTS = Path.of("target", "console-screenshots");

    private final ChromeDriver driver;

    private Browser(ChromeDriver driver) {
        this.driver = driver;
    }

    public static Browser start() {
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
            fail("the console's browser tests need Chromium and its driver at " + CHROMIUM + " and " + CHROMEDRIVER
                    + "; install them with: apt-get update && apt-get install -y chromium chromium-driver"
                    + " (dev/test-setup does, and `./mvnw verify` runs it)");
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        // --no-sandbox: Chromium refuses to run as root (CI) with its sandbox on.
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1440,1000", "--lang=en-US");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build();
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(60));
        return new Browser(driver);
    }

    public ChromeDriver driver() {
        return driver;
    }

    public WebDriverWait waiting() {
        return new WebDriverWait(driver, Duration.ofSeconds(30), Duration.ofMillis(100));
    }

    /**
     * Clicks a link or submit button and returns once the page it leads to has loaded; look up what you need
     * on that page afresh ({@link #element}), never through an element found before the click.
     * <p>
     * The wait is on the new document, not on the old one going stale. A click returns as soon as the browser
     * has taken it, and a slow answer (a throttled sign-in, a group retry) leaves the old page in place for a
     * while. Asking an element of the old page whether it is stale (Selenium's {@code stalenessOf}) cannot be
     * trusted: while Chromium swaps the documents, chromedriver answers "Node with given id does not belong to
     * the document" as an unknown error, not as a stale element, and such a wait ends with it. So the old
     * document is marked with a token of its own (a property of its window, which a new document never has), and
     * the wait asks the current document for that mark and its ready state; an answer refused mid-swap is simply
     * asked again (docs/RELIABILITY.md, "The browser tests, run after run", has the runs that show it holds).
     */
    public void follow(WebElement control) {
        String what = describe(control);
        String from = driver.getCurrentUrl();
        String mark = UUID.randomUUID().toString();
        driver.executeScript("window.txinboxTestPage = arguments[0]", mark);
        control.click();
        waiting().withMessage(() -> "clicked " + what + " on " + from + ": the page it leads to did not load; the"
                + " browser shows " + where())
                .until(d -> {
                    try {
                        return "complete".equals(driver.executeScript(
                                "return window.txinboxTestPage === arguments[0] ? 'old' : document.readyState", mark));
                    } catch (WebDriverException swapping) {
                        return false;
                    }
                });
    }

    /** Opens {@code url} and returns once its page has loaded. */
    public void open(String url) {
        driver.get(url);
        waiting().withMessage(() -> url + " did not load; the browser shows " + where())
                .until(d -> "complete".equals(driver.executeScript("return document.readyState")));
    }

    /** The element {@code locator} finds on the current page, waited for; a wait that runs out names both. */
    public WebElement element(By locator) {
        return waiting().withMessage(() -> "no " + locator + " on " + where()).until(d -> {
            List<WebElement> found = d.findElements(locator);
            return found.isEmpty() ? null : found.get(0);
        });
    }

    /** The page the browser shows, for messages: its address and title. */
    private String where() {
        try {
            return driver.getCurrentUrl() + " (\"" + driver.getTitle() + "\")";
        } catch (WebDriverException e) {
            return "(no answer: " + e.getClass().getSimpleName() + ")";
        }
    }

    private static String describe(WebElement control) {
        String id = control.getAttribute("id");
        return control.getTagName() + (id == null || id.isEmpty() ? "" : "#" + id) + " '" + control.getText() + "'";
    }

    /** The whole page, not only the window, as a PNG under target/console-screenshots/. */
    public Path screenshot(String name) {
        try {
            Files.createDirectories(SCREENSHOTS);
            @SuppressWarnings("unchecked")
            Map<String, Object> size = (Map<String, Object>) driver.executeCdpCommand("Page.getLayoutMetrics", Map.of())
                    .get("cssContentSize");
            double width = ((Number) size.get("width")).doubleValue(), height = ((Number) size.get("height")).doubleValue();
            Object data = driver.executeCdpCommand("Page.captureScreenshot", Map.of("format", "png",
                    "captureBeyondViewport", true,
                    "clip", Map.of("x", 0, "y", 0, "width", width, "height", height, "scale", 1))).get("data");
            Path file = SCREENSHOTS.resolve(name + ".png");
            Files.write(file, Base64.getDecoder().decode((String) data));
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        driver.quit();
    }
}
