"""xml_etree_process: parse, then query and rewrite the tree (findall,
attribute updates, element removal) and serialise the result."""

import xml.etree.ElementTree as ET

from xml_data import document

DOC = document(SCALE)


def bench(loops):
    for _ in range(loops):
        root = ET.fromstring(DOC)
        for item in root.iterfind("item"):
            price = float(item.findtext("price"))
            item.set("discounted", "%.2f" % (price * 0.9))
            tags = item.find("tags")
            for tag in list(tags):
                if tag.text.endswith("1"):
                    tags.remove(tag)
        cheap = [i.get("id") for i in root.findall("item") if float(i.get("discounted")) < 50]
        out = ET.tostring(root)
        assert cheap and out
