"""xml_etree_iterparse: the same document read incrementally with
iterparse, elements cleared as they finish (start/end events)."""

import io
import xml.etree.ElementTree as ET

from xml_data import document

DOC = document(SCALE)


def bench(loops):
    for _ in range(loops):
        items = 0
        for event, elem in ET.iterparse(io.BytesIO(DOC), events=("start", "end")):
            if event == "end" and elem.tag == "item":
                items += 1
                elem.clear()
        assert items > 0
