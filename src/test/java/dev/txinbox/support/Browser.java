package dev.txinbox.support;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;

import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
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
                    + " (.ci/run does)");
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
     * Clicks a link or submit button and returns once the page it leads to has loaded. A click returns as soon as
     * the browser has taken it, and a slow answer (a throttled sign-in, a group retry) leaves the old page in place
     * for a while: looking for the next page's elements at once finds the old page's, or nothing.
     */
    public void follow(WebElement control) {
        WebElement leaving = driver.findElement(By.tagName("html"));
        control.click();
        waiting().until(ExpectedConditions.stalenessOf(leaving));
        waiting().until(d -> "complete".equals(driver.executeScript("return document.readyState")));
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
