"""在真的浏览器里打开第 09 课的网页（无界面 Chromium + Selenium，从磁盘 file:// 打开，不联网）。

手机宽 390 像素与桌面宽 1280 像素各截一张整页图，存到 runs/site-screenshots/（git 不跟踪）。
Selenium 直接用系统的 /usr/bin/chromedriver，不会去网上下载驱动。
只有本机确实没装 Chromium 时才跳过；CI（.ci/run）会先装好 chromium 和 chromium-driver。
"""
from __future__ import annotations

from pathlib import Path

import pytest

from poetry_gpt.common import ROOT
from poetry_gpt.courseware import site
from poetry_gpt.courseware.catalogue import BY_NUMBER

CHROMEDRIVER = Path("/usr/bin/chromedriver")
CHROMIUM = next((Path(p) for p in ("/usr/lib/chromium/chromium", "/usr/bin/chromium") if Path(p).exists()), None)
SCREENSHOTS = ROOT / "runs" / "site-screenshots"

pytestmark = pytest.mark.skipif(CHROMIUM is None or not CHROMEDRIVER.exists(),
                                reason="本机没有安装 chromium 与 chromium-driver（apt-get install chromium chromium-driver）")


@pytest.fixture(scope="module")
def browser():
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--hide-scrollbars", "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    # 指明驱动路径：Selenium Manager 不会启动，也就不会联网下载驱动
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def lesson_09(tmp_path_factory):
    out = tmp_path_factory.mktemp("web") / "site"
    site.build(out)
    return out / "09.html"


@pytest.mark.parametrize("width", [390, 1280])
def test_lesson_09_renders(browser, lesson_09, width):
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600})
    browser.get(lesson_09.as_uri())
    title = BY_NUMBER[9].title
    assert browser.find_element("tag name", "h1").text == title
    assert title in browser.title
    # 样式表真的加载了（file:// 下的相对路径）：正文栏有最大宽度，标题用衬线字体栈
    assert browser.execute_script("return getComputedStyle(document.querySelector('.page')).maxWidth") != "none"
    scroll_width, client_width = browser.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert client_width == width
    if width == 390:
        assert scroll_width <= client_width, "手机宽度下页面出现了横向滚动"
    svg = browser.find_element("css selector", "figure.fig svg")
    assert svg.size["width"] > 100 and svg.size["height"] > 100
    assert svg.size["width"] <= width  # 图在屏幕里（太宽时在图框里横向滑动，不撑宽页面）
    # 答案默认折叠：打开 <details> 之前看不到答案文字
    details = browser.find_element("css selector", "details")
    assert details.get_attribute("open") is None
    # 整页截图：把视口拉到页面的高度再截
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": width, "height": min(height, 16000), "deviceScaleFactor": 1, "mobile": width < 600})
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shot = SCREENSHOTS / f"lesson-09-{width}.png"
    assert browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 20_000  # 一张有内容的图，不是空白页
