"""给学习者看的 Python 报错：把编译器的英文 SyntaxError 消息配上中文说明（原文留在括号里，可以拿去搜索）。

./poet check、./poet grade（grading.submission.file_problem）与 ./poet diff 都用它；只收常见的几种，
认不出的消息原样返回。消息的原文以 Python 3.10–3.13 的写法为准。
"""

from __future__ import annotations

import re

_SYNTAX = [
    (re.compile(pattern), chinese)
    for pattern, chinese in (
        # 中文学习者最常见的：用了全角标点
        (
            r"invalid character '(.)' \(U\+[0-9A-F]+\)",
            r'代码里不能用字符“\1”：标点要用英文半角（， → ,  （ → (  ： → :  “ → "）',
        ),
        (
            r"invalid non-printable character U\+([0-9A-F]+)",
            r"有一个看不见的字符 U+\1（常是从网页或聊天软件复制时带进来的）：删掉重打这一行",
        ),
        (r"inconsistent use of tabs and spaces in indentation", "缩进里混用了制表符（Tab）和空格：请统一用 4 个空格"),
        (r"unindent does not match any outer indentation level", "这一行的缩进对不上外面任何一层：数一数空格"),
        (r"unexpected indent", "这一行多了缩进"),
        (
            r"expected an indented block after '(\w+)' statement on line (\d+)",
            r"第 \2 行的 \1 语句后面要有缩进的代码块",
        ),
        (r"expected an indented block after function definition on line (\d+)", r"第 \1 行的 def 后面要有缩进的函数体"),
        (r"expected an indented block after class definition on line (\d+)", r"第 \1 行的 class 后面要有缩进的类体"),
        (r"expected an indented block.*", "这里要有缩进的代码块"),
        (r"too many levels of indentation", "缩进的层数太多"),
        (r"expected ':'", "这里少了冒号 :"),
        (r"'(.)' was never closed", r"“\1”没有配对的右括号"),
        (r"unmatched '(.)'", r"“\1”没有配对的左括号"),
        (r"closing parenthesis '(.)' does not match opening parenthesis '(.)'.*", r"右括号“\1”和左括号“\2”配不上"),
        (r"unterminated triple-quoted string literal.*", "三引号字符串没有结束：少了结尾的三个引号"),
        (r"unterminated string literal.*", "字符串没有结束：少了结尾的引号"),
        (r"unexpected EOF while parsing", "代码没写完文件就结束了（常是括号没有配对）"),
        (r"invalid syntax\. Perhaps you forgot a comma\?", "语法错误：是不是漏了逗号？"),
        (r"invalid syntax\. Maybe you meant '==' or ':=' instead of '='\?", "语法错误：比较是否相等要写 =="),
        (r"invalid syntax", "语法错误"),
        (r"invalid decimal literal", "数字的写法不对：数字后面紧跟着字母（变量名不能以数字开头）"),
        (r"Missing parentheses in call to '(\w+)'.*", r"调用 \1 要加括号，例如 \1(...)"),
        (r"'return' outside function", "return 写在了函数外面"),
        (r"'(break|continue)' (?:not properly in|outside) loop", r"\1 写在了循环外面"),
        (r"cannot assign to .*", "等号左边的东西不能被赋值（比较是否相等要写 ==）"),
        (r"expected 'except' or 'finally' block", "try 后面要有 except 或 finally"),
        (r"unexpected character after line continuation character", "续行的反斜杠 \\ 后面不能再有字符"),
        (
            r"source code (?:string )?cannot contain null bytes",
            "文件里有空字符（NUL）：常见原因是文件被存成了 UTF-16，请用 UTF-8 另存",
        ),
    )
]


def syntax_message(message: str) -> str:
    """Python 的一条 SyntaxError（含 IndentationError、TabError）消息 → “中文说明（英文原文）”；认不出时原样返回。

    例：``"expected ':'"`` → ``"这里少了冒号 :（expected ':'）"``。
    """
    for pattern, chinese in _SYNTAX:
        m = pattern.fullmatch(message)
        if m:
            return f"{m.expand(chinese)}（{message}）"
    return message


_TORCH = [
    (re.compile(pattern), chinese)
    for pattern, chinese in (
        (
            r"The size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at non-singleton dimension (\d+)",
            r"两个张量的形状对不上：dim=\3 那一维一个是 \1、一个是 \2，既不相等也不是 1，没法逐元素运算（广播的规则见第 02 课）",
        ),
        (
            r"mat1 and mat2 shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)",
            r"矩阵乘法的形状对不上：左边 [\1, \2] 的最后一维 \2 要等于右边 [\3, \4] 的第一维 \3",
        ),
        (
            r"index (-?\d+) is out of bounds for dimension (\d+) with size (\d+)",
            r"下标 \1 超出了范围：dim=\2 那一维只有 \3 个（下标从 0 数）",
        ),
        (r"index out of range in self", "查表的编号超出了范围：编号要在 0 到表的行数减 1 之间"),
        (
            r"Dimension out of range \(expected to be in range of \[(-?\d+), (-?\d+)\], but got (-?\d+)\)",
            r"dim=\3 超出了范围：这个张量的 dim 只能是 \1 到 \2",
        ),
        (
            r"shape '(\[[^\]]*\])' is invalid for input of size (\d+)",
            r"view/reshape 的形状 \1 与元素个数对不上：输入一共 \2 个数",
        ),
        (
            r"view size is not compatible with input tensor's size and stride.*",
            "view 用在了不连续的张量上（比如 transpose 之后）：改用 reshape，或先 .contiguous()",
        ),
        (
            r"Sizes of tensors must match except in dimension (\d+)\..*",
            r"torch.cat 拼接的张量，除了 dim=\1 那一维，其余各维的大小要一样",
        ),
        (r"(?:mean|var|std)\(\): could not infer output dtype.*", "整数张量不能求平均：先 .float()"),
        (
            r"expected m1 and m2 to have the same dtype.*|expected scalar type .*",
            "参与运算的两个张量 dtype 不一样（比如一个是整数、一个是浮点数）：先用 .float() 或 .long() 统一",
        ),
        (
            r"einsum\(\): the number of subscripts in the equation \((\d+)\) does not match the number of dimensions "
            r"\((\d+)\) for operand (\d+).*",
            r"einsum 的下标写少或写多了：等式里第 \3 个张量（从 0 数）写了 \1 个下标，它却有 \2 维——每一维要一个字母",
        ),
        (
            r"einsum\(\): subscript (\w) has size (\d+) for operand (\d+) which does not broadcast with previously seen size (\d+)",
            r"einsum 里同一个字母 \1 要是同样长的维：第 \3 个张量（从 0 数）那一维是 \2，前面的是 \4",
        ),
        (
            r"'NoneType' object (?:is not subscriptable|has no attribute '\w+'|is not iterable|is not callable)",
            "一个值是 None，却拿它取下标、取属性或逐个取：多半是哪个函数忘了写 return（没有 return 的函数返回 None），"
            "或者用了原地方法的返回值（list.sort()、list.append() 返回 None）",
        ),
        (
            r"unsupported operand type\(s\) for (.+): '(\w+)' and '(\w+)'",
            r"\2 与 \3 之间做不了 \1 运算（其中是 NoneType 的，多半是哪个函数忘了写 return）",
        ),
        (
            r"'(\w+)' object is not callable",
            r"\1 不是函数，不能加括号调用：看看是不是有个变量和函数同名，或者多写了一对括号",
        ),
        (r"'(\w+)' object is not subscriptable", r"\1 不能取下标 [...]：看看这个变量是不是你以为的列表或张量"),
        (r"'(\w+)' object is not iterable", r"\1 不能逐个取（for 循环、解包）：看看这个变量是不是你以为的列表或张量"),
        (
            r"list indices must be integers or slices, not (\w+)|only integer tensors of a single element can be converted to an index",
            "列表的下标要是 Python 的整数：张量先用 .item() 取出数，或者把列表换成张量再用张量做下标",
        ),
        (
            r"a Tensor with (\d+) elements cannot be converted to Scalar",
            r".item() 只能用在只有一个数的张量上，这个张量有 \1 个数",
        ),
        (
            r"Boolean value of Tensor with more than one value is ambiguous",
            "有好几个数的张量不能直接当 if、and、or 的条件：要的是“全都”就用 .all()，“有一个”就用 .any()",
        ),
        (
            r"(Double|Float|Half|BFloat16) did not match (Double|Float|Half|BFloat16)",
            r"两个张量的 dtype 不一样（\1 与 \2：Float 是 float32，Double 是 float64）：先用 .to(另一个.dtype) 统一",
        ),
        (
            r"zero-dimensional tensor \(at position (\d+)\) cannot be concatenated",
            r"torch.cat 拼不了 0 维的张量（第 \1 个，从 0 数）：要把几个数摆成一列，用 torch.stack 或 torch.tensor([...])",
        ),
        (
            r"stack expects each tensor to be equal size, but got (\[[^\]]*\]) at entry 0 and (\[[^\]]*\]) at entry (\d+)",
            r"torch.stack 摞起来的张量要形状一样：第 0 个是 \1，第 \3 个是 \2",
        ),
        (
            r"(?:float |integer )?division (?:or modulo )?by zero",
            "除以了 0：分母可能是 0（空列表、一个也没有的计数），先判断再除",
        ),
        (r"(list|string|tuple) index out of range", r"下标超出了范围：\1 的下标从 0 数，最大是长度减 1"),
        (r"too many values to unpack \(expected (\d+)\)", r"解包时右边的值比左边的 \1 个名字多"),
        (r"not enough values to unpack \(expected (\d+), got (\d+)\)", r"解包时左边有 \1 个名字，右边只有 \2 个值"),
        (
            r"cannot access local variable '(\w+)' where it is not associated with a value|local variable '(\w+)' referenced before assignment",
            r"变量 \1\2 在赋值之前就用到了：看看它是不是只在某个 if 分支或循环里才赋值",
        ),
        (r"unhashable type: '(\w+)'", r"\1 不能当字典的键、也不能放进集合：列表换成元组，张量先 .item() 或 .tolist()"),
        (
            r"(\S+)\(\) takes (\d+) positional arguments? but (\d+) (?:was|were) given",
            r"\1 只收 \2 个参数，调用时却给了 \3 个",
        ),
        (r"(\S+)\(\) missing (\d+) required positional arguments?: (.*)", r"调用 \1 时少了参数 \3"),
        (
            r"(max|min)\(\): Expected reduction dim to be specified for input.numel\(\) == 0.*",
            r"空张量（一个数也没有）求不了 \1：先判断它是不是空的",
        ),
        (
            r"result type (\w+) can't be cast to the desired output type (\w+)",
            r"结果是 \1，存不进 \2 的张量（原地运算 +=、add_ 之类不改 dtype）：先把张量转成 \1 再算",
        ),
        (r"'(\w+)' object has no attribute '(\w+)'", r"\1 没有叫 \2 的属性或方法：看看是不是拼错了"),
        (r"name '(\w+)' is not defined", r"名字 \1 没有定义：拼错了，或者忘了 import"),
        (r".*only supports boolean masks.*", "掩码要是 bool 张量：比较运算（x > 0）得到的就是，或者用 .bool()"),
        (
            r"Expected tensor for argument #1 'indices' to have one of the following scalar types.*|gather\(\): Expected dtype int.*",
            "当下标用的张量要是整数（torch.long）：先 .long()",
        ),
    )
]
_ERROR_LINE = re.compile(r"^(\w+(?:Error|Exception)): (.*)$", re.M)
_HAN = re.compile(r"[\u3400-\u9fff]")


def error_hint(message: str) -> str | None:
    """学习者的代码崩溃时的消息（最后一行是“RuntimeError: 英文原文”）前面加的一句中文；错误行已是中文、或不是
    报错时为 None。认得的 torch 报错说清是哪里不对；认不得的英文报错说一句怎样读它。英文原文照旧留在后面，可以拿去搜索。"""
    found = _ERROR_LINE.findall(message)
    if not found or _HAN.search(found[-1][1]):
        return None
    text = found[-1][1]
    for pattern, chinese in _TORCH:
        if m := pattern.fullmatch(text) or pattern.match(text):
            return m.expand(chinese) + "。"
    return "代码运行时出了错，最后一行是 Python 或 torch 的英文报错原文：先看它指着的那一行代码，在那一行前打印用到的值（张量就打印 .shape 与 .dtype）看看。"


def not_utf8(line: int) -> str:
    """文件在第 line 行起读不成 UTF-8 时的说明。"""
    return (
        f"第 {line} 行不是 UTF-8 编码（常见于记事本或中文 Windows 默认的 GBK/ANSI 编码）：请把文件另存为 UTF-8 后再检查"
    )


# 控制字符、双向控制符与看不见的字符：U+061C 阿拉伯字母标记、U+00AD 软连字符、U+034F 组合用字素连接符、
# U+115F/U+1160/U+3164/U+FFA0 韩文填充符、U+17B4/U+17B5、U+180B–U+180F 蒙古文变体选择符、U+200B–U+200F 零宽字符、
# U+2028/U+2029 行与段分隔符、U+2060–U+206F、U+FE00–U+FE0F 变体选择符、U+FEFF、U+FFF0–U+FFFB、
# U+1BCA0–U+1BCA3、U+1D173–U+1D17A、U+E0000–U+E0FFF（标签字符与补充变体选择符）：原样到了终端会挪动表格的边框、
# 改写文字的方向，或者让两个不同的名字印出来一模一样
_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f"
    "\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)


_LINE_BREAKS = {"\t": "\\t", "\n": "\\n"}
"""one_line 时也转义的空白：制表符与换行。"""


def code_point(ch: str) -> str:
    """一个字符的转义写法：\\x1b、\\u200b、\\U000e0020（长短按码位，读的人照写法就知道是哪一个）。"""
    n = ord(ch)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"


def _escaped(text: str, one_line: bool) -> str:
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    text = _CONTROL.sub(lambda m: code_point(m.group()), text)
    return "".join(_LINE_BREAKS.get(ch, ch) for ch in text) if one_line else text


def safe_text(text: str, limit: int | None = None, *, one_line: bool = False, keep_end: bool = False) -> str:
    """给终端与报告用的文本（全课程只此一处转义与截短要显示的文字）：控制字符（ESC、回车、退格、双向控制符、
    零宽字符……）写成 \\x1b 这样的转义，不能编码成 UTF-8 的孤立代理字符写成 \\udcff；one_line 时制表符与换行
    也写成 \\t、\\n（表格里的一格、消息里回显的一个参数不会被拆成几行）。

    比 limit 个字符长时截短。平常只留开头，接“ …（后面省略）”：先截短再转义，花的时间与内存只看 limit，
    不看学习者交了多长。keep_end 时留开头三分之二与结尾三分之一，中间写明转义后一共多少个字符
    （回显学习者给的路径与参数：结尾常是要紧的一段）。
    """
    if keep_end:
        text = _escaped(text, one_line)
        if limit is None or len(text) <= limit:
            return text
        return f"{text[: limit * 2 // 3]}…（共 {len(text)} 个字符）…{text[-(limit // 3) :]}"
    if limit is not None and len(text) > limit:
        text = text[: limit + 1]
    text = _escaped(text, one_line)
    if limit is not None and len(text) > limit:
        text = text[:limit] + " …（后面省略）"
    return text
