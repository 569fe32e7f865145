"""格律约束：句末可选的标点只取汉字表里有的。"""

from poetry_gpt.constraints import LINE_END_CHOICES, Constraint
from poetry_gpt.data import Tokenizer, default_tokenizer
from poetry_gpt.settings import PLAIN

TOK = default_tokenizer()


def test_line_ends_are_the_choices_the_vocabulary_has():
    """LINE_END_CHOICES 列了 ！，汉字表里却没有它（语料里没有一首诗用）：Constraint 只用表里有的，
    表里有 ！ 时（比如重建语料后）才用上。"""
    assert LINE_END_CHOICES == ("，？！", "。？！")
    assert "！" not in TOK and all(c in TOK for c in "，。？")
    ends = lambda tok: ["".join(tok.tokens[i] for i in e.tolist()) for e in Constraint(tok, 5, rules=PLAIN).ends]
    assert ends(TOK) == ["，？", "。？"]
    assert ends(Tokenizer(TOK.tokens + ["！"])) == ["，？！", "。？！"]
