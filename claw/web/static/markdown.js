// A small Markdown renderer that builds DOM nodes and never parses HTML: every character of the text
// ends up in a text node (textContent), so nothing the model writes can become markup or script.
// Blocks: fenced code, headings, block quotes, lists (- * + and 1.), horizontal rules, paragraphs.
// Inline: `code`, **strong**, *em* / _em_, ~~del~~, [text](url) (http, https and mailto only), bare URLs.

const SAFE_LINK = /^(https?:|mailto:)/i;

export function renderMarkdown(text) {
  const root = document.createDocumentFragment();
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const fence = line.match(/^\s*(```+|~~~+)\s*([\w+-]*)/);
    if (fence) {
      const body = [];
      i += 1;
      while (i < lines.length && !lines[i].trimStart().startsWith(fence[1])) body.push(lines[i++]);
      i += 1; // the closing fence (absent while a reply still streams)
      const pre = el("pre");
      const code = el("code", body.join("\n"));
      if (fence[2]) code.dataset.lang = fence[2];
      pre.append(code);
      root.append(pre);
      continue;
    }
    if (!line.trim()) { i += 1; continue; }
    const heading = line.match(/^(#{1,6})\s+(.*)$/);
    if (heading) {
      root.append(inline(el("h" + Math.min(6, heading[1].length + 2)), heading[2]));
      i += 1;
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) { root.append(el("hr")); i += 1; continue; }
    if (/^\s*>/.test(line)) {
      const quoted = [];
      while (i < lines.length && /^\s*>/.test(lines[i])) quoted.push(lines[i++].replace(/^\s*>\s?/, ""));
      const quote = el("blockquote");
      quote.append(renderMarkdown(quoted.join("\n")));
      root.append(quote);
      continue;
    }
    const item = listItem(line);
    if (item) {
      const list = el(item.ordered ? "ol" : "ul");
      if (item.ordered && item.start !== 1) list.start = item.start;
      while (i < lines.length) {
        const next = listItem(lines[i]);
        if (!next || next.ordered !== item.ordered) break;
        const parts = [next.text];
        i += 1;
        while (i < lines.length && /^\s{2,}\S/.test(lines[i]) && !listItem(lines[i])) parts.push(lines[i++].trim());
        list.append(inline(el("li"), parts.join(" ")));
      }
      root.append(list);
      continue;
    }
    const para = [];
    while (i < lines.length && lines[i].trim() && !startsBlock(lines[i])) para.push(lines[i++]);
    const p = el("p");
    para.forEach((part, n) => {
      if (n) p.append(el("br"));
      inline(p, part);
    });
    root.append(p);
  }
  return root;
}

function startsBlock(line) {
  return /^\s*(```|~~~|#{1,6}\s|>)/.test(line) || listItem(line) !== null;
}

function listItem(line) {
  const bullet = line.match(/^\s{0,3}[-*+]\s+(.*)$/);
  if (bullet) return { ordered: false, text: bullet[1] };
  const numbered = line.match(/^\s{0,3}(\d{1,9})[.)]\s+(.*)$/);
  if (numbered) return { ordered: true, start: Number(numbered[1]), text: numbered[2] };
  return null;
}

const INLINE = /(`+)([^`]|[^`][\s\S]*?[^`])\1|\*\*(.+?)\*\*|__(.+?)__|~~(.+?)~~|\*([^*\s](?:.*?[^*\s])?)\*|\b_([^_\s](?:.*?[^_\s])?)_\b|\[([^\]]+)\]\(([^)\s]+)\)|(https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])/;

function inline(parent, text) {
  let rest = text;
  while (rest) {
    const m = rest.match(INLINE);
    if (!m) { parent.append(rest); break; }
    if (m.index) parent.append(rest.slice(0, m.index));
    if (m[1]) parent.append(el("code", m[2]));
    else if (m[3] || m[4]) parent.append(inline(el("strong"), m[3] || m[4]));
    else if (m[5]) parent.append(inline(el("del"), m[5]));
    else if (m[6] || m[7]) parent.append(inline(el("em"), m[6] || m[7]));
    else if (m[8]) parent.append(link(m[8], m[9]));
    else parent.append(link(m[10], m[10]));
    rest = rest.slice(m.index + m[0].length);
  }
  return parent;
}

function link(label, href) {
  if (!SAFE_LINK.test(href)) return document.createTextNode(`[${label}](${href})`);
  const a = el("a");
  a.href = href;
  a.rel = "noopener noreferrer nofollow";
  a.target = "_blank";
  return inline(a, label);
}

function el(tag, text) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  return node;
}
