#!/usr/bin/env python3
"""Writes weatherd.toml(5) from the "Configuration" section of docs/protocol.md, so the manual page
says what the reference says: packaging/deb/config-manpage.py docs/protocol.md VERSION DATE > weatherd.toml.5

Only the Markdown that section uses is understood: paragraphs, `### ` headings, tables of keys
(| key | type | default | allowed | reload |), numbered and bulleted lists, `code`, **bold**, links.
"""
import re
import sys


def inline(text: str) -> str:
    """Markdown inline text to roff: code spans bold, links as their text, roff escapes."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # [text](link) -> text
    out = []
    for i, part in enumerate(re.split(r"`([^`]*)`", text)):
        part = part.replace("\\", "\\e")
        if i % 2:  # a code span: bold, and its hyphens are minus signs
            out.append("\\fB" + part.replace("-", "\\-") + "\\fR")
        else:
            part = re.sub(r"\*\*([^*]*)\*\*", r"\\fB\1\\fR", part)
            out.append(part)
    return "".join(out)


def line(text: str) -> str:
    """A text line that roff will not take for a request."""
    text = text.strip()
    return "\\&" + text if text[:1] in (".", "'") else text


def section(markdown: str, title: str) -> list[str]:
    lines = markdown.splitlines()
    start = lines.index(f"## {title}") + 1
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("## "))
    return lines[start:end]


def render(body: list[str]) -> list[str]:
    roff: list[str] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            roff.append(".PP")
            roff.append(line(inline(" ".join(paragraph))))
            paragraph.clear()

    i = 0
    while i < len(body):
        text = body[i]
        if text.startswith("### "):
            flush()
            roff.append(".SS " + inline(text[4:]).replace("\\fB", "").replace("\\fR", ""))
        elif text.startswith("|"):
            flush()
            header = [c.strip() for c in text.strip("|").split("|")]
            i += 2  # the header and its |---| line
            while i < len(body) and body[i].startswith("|"):
                cells = dict(zip(header, (c.strip() for c in body[i].strip("|").split("|"))))
                roff.append(".TP")
                roff.append(line(f"{inline(cells['key'])} ({cells['type']}, default {inline(cells['default'])})"))
                if cells.get("allowed"):
                    roff.append(line("Allowed: " + inline(cells["allowed"]) + "."))
                    roff.append(".br")
                roff.append(line("Reload: " + inline(cells["reload"]) + "."))
                i += 1
            continue
        elif re.match(r"^(\d+\.|-) ", text):
            flush()
            marker, item = text.split(" ", 1)
            parts = [item]
            while i + 1 < len(body) and body[i + 1].startswith("   "):
                i += 1
                parts.append(body[i].strip())
            roff.append(".IP " + ("\\(bu 2" if marker == "-" else marker + " 4"))
            roff.append(line(inline(" ".join(parts))))
        elif not text.strip():
            flush()
        else:
            paragraph.append(text.strip())
        i += 1
    flush()
    return roff


def main() -> None:
    protocol, version, date = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(protocol, encoding="utf-8") as f:
        markdown = f.read()
    out = [
        '.\\" Generated from docs/protocol.md ("Configuration") by packaging/deb/config-manpage.py.',
        f'.TH WEATHERD.TOML 5 "{date}" "weatherd {version}" "File Formats"',
        ".SH NAME",
        "weatherd.toml \\- configuration file of weatherd",
        ".SH SYNOPSIS",
        "/etc/weatherd/weatherd.toml",
        ".SH DESCRIPTION",
    ]
    out += render(section(markdown, "Configuration"))
    out += [
        ".SH FILES",
        ".TP",
        "/etc/weatherd/weatherd.toml",
        "The configuration read by the packaged service (every key documented with its default).",
        ".TP",
        "/etc/weatherd/owm-api-key",
        "The OpenWeatherMap API key, if you have one (without it, weather comes from Open-Meteo),",
        "mode 0600, owner root; the service receives it through",
        "\\fBLoadCredential=owm\\-api\\-key:/etc/weatherd/owm\\-api\\-key\\fR.",
        ".TP",
        "/etc/weatherd/open-meteo-api-key",
        "An Open-Meteo subscription's key, for commercial use (optional), received the same way.",
        ".SH SEE ALSO",
        ".BR weatherd (8),",
        ".BR weatherctl (1),",
        ".BR systemd.exec (5)",
        ".PP",
        "The complete reference, including the socket protocol: /usr/share/doc/weatherd/protocol.md.gz.",
    ]
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
