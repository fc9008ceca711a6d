"""xml_etree_parse: parsing an XML document into an ElementTree (the C
accelerator over expat): one element, attribute dict and text per node."""

import xml.etree.ElementTree as ET

from xml_data import document

DOC = document(SCALE)


def bench(loops):
    for _ in range(loops):
        root = ET.fromstring(DOC)
        assert root.tag == "catalog" and len(root) > 0
