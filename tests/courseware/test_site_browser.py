"""在真的浏览器里打开每一课的网页（无界面 Chromium + Selenium，从磁盘 file:// 打开，不联网）。

每一页在手机宽 390 像素与桌面宽 1280 像素下：标题对、样式表加载了、页面本身不横向滚动（宽的代码块、
文字图和表格在自己里面滑动）、1280 像素下文字图整个放得下、每张插图都在；带声调的拼音（ǎ）真的画出了笔画
（文泉驿微米黑里的 ǎ 是空白字形，字体栈把它排在前面时这一条会失败）。
每页各截一张整页图，存到 runs/site-screenshots/（git 不跟踪）。整个文件只开一个浏览器；网站与 test_site.py 共用同一份。
Selenium 直接用系统的 /usr/bin/chromedriver，不会去网上下载驱动。
只有本机确实没装 Chromium 时才跳过；CI（.ci/run）会先装好 chromium、chromium-driver 和字体。
"""

from __future__ import annotations

import re

import pytest
from conftest import CHROMEDRIVER, CHROMIUM

from courseware.catalogue import BY_NUMBER, CATALOGUE
from courseware.site import build as site
from poetry_gpt.common import ROOT

SCREENSHOTS = ROOT / "runs" / "site-screenshots"
LESSONS = [lesson for lesson in CATALOGUE if lesson.available]

pytestmark = pytest.mark.browser  # 本机没有 Chromium 时跳过（tests/conftest.py），CI 里缺了就是错误

LAYOUT = """
const page = document.documentElement;
const wide = [...document.querySelectorAll('pre.hl[data-lang="text"]')]
  .filter(p => !p.closest('details') && p.scrollWidth > p.clientWidth + 1)
  .map(p => p.textContent.trim().slice(0, 40));
const figures = [...document.querySelectorAll('figure.fig svg')].map(s => {
  const r = s.getBoundingClientRect();
  return [r.width, r.height];
});
const out = [...document.querySelectorAll('main *')].filter(e => e.getBoundingClientRect().right > page.clientWidth + 1
  && !e.closest('pre, table, .fig-svg')).map(e => e.tagName + ' ' + (e.textContent || '').trim().slice(0, 30));
return {scroll: page.scrollWidth, client: page.clientWidth, wide: wide, figures: figures, out: out.slice(0, 5),
        height: page.scrollHeight, maxWidth: getComputedStyle(document.querySelector('.page')).maxWidth};
"""

INK = """
const [text, element] = arguments;
const font = getComputedStyle(element).font;
const canvas = document.createElement('canvas');
canvas.width = 120; canvas.height = 120;
const ctx = canvas.getContext('2d');
ctx.font = font.replace(/\\d+(\\.\\d+)?px/, '64px');
ctx.fillStyle = '#000';
ctx.fillText(text, 20, 90);
const data = ctx.getImageData(0, 0, 120, 120).data;
let ink = 0;
for (let i = 3; i < data.length; i += 4) ink += data[i] > 0;
const m = ctx.measureText(text);
return [ink, m.actualBoundingBoxLeft + m.actualBoundingBoxRight];
"""


@pytest.fixture(scope="module")
def browser():
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        "--no-first-run",
        "--disable-extensions",
    ):
        options.add_argument(arg)
    # 指明驱动路径：Selenium Manager 不会启动，也就不会联网下载驱动
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def built(site_build):
    """test_site.py 检查过的那一份网站（整个测试运行只生成一次，见 tests/conftest.py）。"""
    assert site_build.returncode == 0, site_build.stdout + site_build.stderr
    return site_build.out


def viewport(browser, width: int, height: int = 900) -> None:
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
    )


@pytest.mark.parametrize("width", [390, 1280])
def test_every_lesson_page_fits(browser, built, width):
    """每一课：页面不横向滚动、1280 像素下文字图放得下、插图都在，并截一张整页图。"""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    problems = []
    for lesson in LESSONS:
        viewport(browser, width)
        browser.get((built / site.lesson_page(lesson)).as_uri())
        assert browser.find_element("tag name", "h1").text == lesson.title
        assert lesson.title in browser.title
        page = browser.execute_script(LAYOUT)
        assert page["maxWidth"] != "none"  # 样式表真的加载了（file:// 下的相对路径）
        assert page["client"] == width
        if page["scroll"] > page["client"]:
            problems.append(f"第 {lesson.code} 课：页面横向滚动（{page['scroll']} > {width}）{page['out']}")
        if width >= 1280 and page["wide"]:
            problems.append(f"第 {lesson.code} 课：1280 像素下文字图放不下：{page['wide']}")
        expected = 1 if lesson.chart else 0
        if len(page["figures"]) < expected:
            problems.append(f"第 {lesson.code} 课：缺插图")
        for w, h in page["figures"]:
            if not (w > 100 and h > 60):  # 比屏幕宽时在图框里横向滑动（页面不滚，上面已查）
                problems.append(f"第 {lesson.code} 课：插图大小不对（{w:.0f} × {h:.0f}）")
        viewport(browser, width, min(page["height"], 16000))  # 整页截图：把视口拉到页面的高度再截
        shot = SCREENSHOTS / f"lesson-{lesson.code}-{width}.png"
        assert browser.save_screenshot(str(shot))
        assert shot.stat().st_size > 20_000  # 一张有内容的图，不是空白页
    assert not problems, "\n".join(problems)


def test_answers_start_folded(browser, built):
    viewport(browser, 390)
    browser.get((built / "09.html").as_uri())
    details = browser.find_element("css selector", "details")
    assert details.get_attribute("open") is None  # 打开 <details> 之前看不到答案文字


@pytest.mark.parametrize("selector", ["p", "h1", "code"])
def test_tone_marked_pinyin_is_drawn(browser, built, selector):
    """第 24 课课文里的拼音（如“斜”今天读 xié）：ǎ ǐ ǒ ǔ à á 等用正文、标题与代码的字体画出来：有笔画（不是空白字形），
    宽度不为 0，笔画至少有 a 的一半多。"""
    viewport(browser, 1280)
    browser.get((built / site.lesson_page(BY_NUMBER[24])).as_uri())
    assert re.search(
        r"[a-z][āáǎàēéěèīíǐìōóǒòūúǔù]", browser.find_element("tag name", "main").text
    )  # 页面上真有带声调的拼音
    element = browser.find_element("css selector", selector)
    for mark in "ǎǐǒǔàá":
        ink, width = browser.execute_script(INK, mark, element)
        plain, _ = browser.execute_script(INK, "a", element)
        assert width > 0 and ink > plain / 2, (selector, mark, ink, plain)


COLUMNS = """
const [block, words] = arguments;
const pre = [...document.querySelectorAll('pre.hl')].find(p => p.textContent.includes(block));
const lefts = {};
for (const word of words) {
  const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
  let text = '', nodes = [];
  while (walker.nextNode()) { nodes.push([walker.currentNode, text.length]); text += walker.currentNode.data; }
  const at = text.indexOf(word);
  const [node, start] = nodes.filter(([n, s]) => s <= at).pop();
  const range = document.createRange();
  range.setStart(node, at - start);
  range.setEnd(node, at - start + 1);
  const cell = node.parentElement.closest(".cell1, .cell2");  // 一个字的格子：量格子，不量字形（字形居中叠在格子上）
  lefts[word] = (cell || range).getBoundingClientRect().left;
}
const ch = document.createElement('span');
ch.textContent = '0'; pre.querySelector('code').appendChild(ch);
lefts['0'] = ch.getBoundingClientRect().width; ch.remove();
return lefts;
"""


@pytest.mark.parametrize("width", [390, 1280])
def test_a_text_diagram_keeps_its_columns(browser, built, width):
    """第 21 课的文字图：右边的说明在终端里从同一列开始（汉字占两列），网页上也要从同一个 x 开始——
    等宽字体里拉丁字母 0.6 em、汉字 1 em，不把汉字排进 2ch 的格子，这几行说明会错开半个到一个字。"""
    viewport(browser, width)
    browser.get((built / site.lesson_page(BY_NUMBER[21])).as_uri())
    notes = ["分数的高低差", "第 40 名的分数", "在这 40 个里", "前面之和 0、"]
    lefts = browser.execute_script(COLUMNS, "除以温度", notes)
    xs = [lefts[n] for n in notes]
    assert max(xs) - min(xs) < 1, lefts  # 同一列：差不到 1 像素
    assert lefts["0"] > 3  # 量的是一个真的字宽
