"""xml_etree_generate: building an ElementTree node by node and
serialising it to bytes."""

import xml.etree.ElementTree as ET

ITEMS = max(5, int(400 * SCALE))


def bench(loops):
    for _ in range(loops):
        root = ET.Element("catalog", version="2")
        for i in range(ITEMS):
            item = ET.SubElement(root, "item", id=str(i), kind="k%d" % (i % 7))
            ET.SubElement(item, "name").text = "Item number %d" % i
            ET.SubElement(item, "price", currency="EUR").text = "%.2f" % (i * 1.25)
            tags = ET.SubElement(item, "tags")
            for t in range(i % 4):
                ET.SubElement(tags, "tag").text = "tag%d" % t
        out = ET.tostring(root, encoding="utf-8")
        assert out.startswith(b"<catalog")
