"""把课文的 Markdown 变成网页片段：markdown-it-py 解析，pygments 在构建时上色，
课文里的相对链接改指网站里的页面，术语表里的词链到术语表。
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape

from markdown_it import MarkdownIt
from markdown_it.token import Token
from pygments import highlight as pygments_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound
from rich.cells import cell_len

CODE_STYLE = "friendly"
_FORMATTER = HtmlFormatter(nowrap=True, style=CODE_STYLE)


def code_css() -> str:
    """pygments 上色用的 CSS 规则，类名挂在 .hl 下。"""
    return HtmlFormatter(style=CODE_STYLE).get_style_defs(".hl")


def highlight(code: str, lang: str = "python", attrs: str = "") -> str:
    """一段代码 → <pre class="hl">…</pre>。认不出的语言照原样转义，不上色。"""
    try:
        lexer = get_lexer_by_name(lang or "text")
    except ClassNotFound:
        lexer = get_lexer_by_name("text")
    name = escape(lang) if lang else "text"
    html = _CELLS.sub(_cell, pygments_highlight(code, lexer, _FORMATTER))
    return f'<pre class="hl scroll-x" data-lang="{name}"><code>{html}</code></pre>\n'


_CELLS = re.compile(r"[^\x00-\x7f]")
"""代码与文字图里的非 ASCII 字符（汉字、全角标点、│ ▼ ① …）：HTML 里只有文字部分会有它们（标签与实体都是 ASCII）。"""


def _cell(m: re.Match) -> str:
    """一个非 ASCII 字符放进一个或两个拉丁字母宽的格子（与终端里一样宽：rich 的 cell_len）。等宽字体里拉丁字母
    约 0.6 em，汉字在中文字体里却是 1 em（不是两个字母宽），不这样排，文字图里汉字后面的列就对不齐。
    格子的宽度由样式表里看不见的“0”“00”撑出（与代码里的字母同一字体、同样取整），字居中叠在上面。"""
    return f'<span class="cell{cell_len(m.group())}"><span>{m.group()}</span></span>'


def make_markdown() -> MarkdownIt:
    """CommonMark + 表格；允许课文里的原始 HTML（答案折叠用的 <details>）。"""
    return MarkdownIt("commonmark", {"html": True, "highlight": highlight}).enable("table")


ALLOWED_TAGS = {"details", "summary", "br", "kbd", "sub", "sup"}
"""课文里可以写的原始 HTML 标签（答案折叠用 <details>）；别的像 <unk>、<sep> 是课文在说特殊标记，当文字显示。"""
_TAG = re.compile(r"</?([A-Za-z][\w-]*)[^<>]*>")


def _allowed(html: str) -> bool:
    return all(name.lower() in ALLOWED_TAGS for name in _TAG.findall(html))


def parse(md: MarkdownIt, text: str) -> list[Token]:
    """解析 Markdown，并把不在 ALLOWED_HTML 里的“HTML”还原成普通文字。"""
    tokens = md.parse(text)
    for tok in tokens:
        if tok.type == "table_open":  # 窄屏时表格在自己里面横向滑动，带阴影提示（style.css 的 .scroll-x）
            tok.attrSet("class", "scroll-x")
        if tok.type == "html_block" and not _allowed(tok.content):
            tok.content = f"<p>{escape(tok.content.strip())}</p>\n"
        for child in tok.children or []:
            if child.type == "html_inline" and not _allowed(child.content):
                child.type = "text"  # 渲染时会转义
    return tokens


def heading_text(tokens: list[Token], i: int) -> str:
    """tokens[i] 是 heading_open 时，返回标题的文字。"""
    return tokens[i + 1].content.strip()


def split_sections(tokens: list[Token]) -> tuple[list[Token], list[tuple[str, list[Token]]]]:
    """按二级标题切开：返回 (第一个 ## 之前的部分, [(标题, 这一节的 token，含标题本身), …])。"""
    head: list[Token] = []
    sections: list[tuple[str, list[Token]]] = []
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.tag == "h2":
            sections.append((heading_text(tokens, i), []))
        (sections[-1][1] if sections else head).append(tok)
    return head, sections


def rewrite_links(tokens: list[Token], mapping: Callable[[str], str]) -> None:
    """把每个链接的 href 换成 mapping(href)（就地修改，包括嵌在行内的链接）。"""
    for tok in tokens:
        for child in tok.children or []:
            if child.type == "link_open":
                child.attrSet("href", mapping(str(child.attrGet("href") or "")))


@dataclass
class Glossary:
    """术语表里的词条：词 → 网页锚点；used 记下每个词在哪些页面被链到。"""

    anchors: dict[str, str]
    used: dict[str, list[str]] = field(default_factory=dict)

    def pattern(self) -> re.Pattern | None:
        if not self.anchors:
            return None
        # 长词优先：“注意力分数”不会被拆成“注意力”+“分数”
        return re.compile("|".join(re.escape(t) for t in sorted(self.anchors, key=len, reverse=True)))

    def link_terms(self, tokens: list[Token], href: str, page: str, label: str) -> None:
        """每个词在这一页第一次出现（正文里，不在标题、链接和代码里）时链到术语表。就地修改 tokens。

        href: 从这一页到术语表的相对路径；page/label: 用来在术语表里反向列出“哪里用到”。
        """
        pattern = self.pattern()
        if pattern is None:
            return
        linked: set[str] = set()
        in_heading = False
        for tok in tokens:
            if tok.type == "heading_open":
                in_heading = True
            elif tok.type == "heading_close":
                in_heading = False
            if tok.type != "inline" or in_heading or not tok.children:
                continue
            out: list[Token] = []
            depth = 0  # 在已有链接里面时不再加链接
            for child in tok.children:
                depth += child.type == "link_open"
                depth -= child.type == "link_close"
                if child.type != "text" or depth:
                    out.append(child)
                    continue
                out.extend(self._split(child.content, pattern, linked, href))
            tok.children = out
        for term in linked:
            self.used.setdefault(term, []).append((page, label))

    def _split(self, text: str, pattern: re.Pattern, linked: set[str], href: str) -> list[Token]:
        pieces: list[Token] = []
        pos = 0
        for m in pattern.finditer(text):
            term = m.group(0)
            if term in linked:
                continue
            linked.add(term)
            if m.start() > pos:
                pieces.append(_text_token(text[pos : m.start()]))
            link = Token("link_open", "a", 1)
            link.attrs = {"href": f"{href}#{self.anchors[term]}", "class": "term", "title": "术语表"}
            pieces += [link, _text_token(term), Token("link_close", "a", -1)]
            pos = m.end()
        if pos < len(text):
            pieces.append(_text_token(text[pos:]))
        return pieces


def _text_token(content: str) -> Token:
    tok = Token("text", "", 0)
    tok.content = content
    return tok
