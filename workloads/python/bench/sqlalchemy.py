"""sqlalchemy: SQLAlchemy's ORM on in-memory SQLite: declarative classes,
a session adding and querying objects (identity map, unit of work).
Needs python3-sqlalchemy."""

from sqlalchemy import Column, ForeignKey, Integer, String, create_engine, select
from sqlalchemy.orm import Session, declarative_base, relationship

Base = declarative_base()
PEOPLE = max(2, int(100 * SCALE))


class Person(Base):
    __tablename__ = "person"
    id = Column(Integer, primary_key=True)
    name = Column(String(50))
    addresses = relationship("Address", back_populates="person")


class Address(Base):
    __tablename__ = "address"
    id = Column(Integer, primary_key=True)
    email = Column(String(80))
    person_id = Column(Integer, ForeignKey("person.id"))
    person = relationship("Person", back_populates="addresses")


def bench(loops):
    for _ in range(loops):
        engine = create_engine("sqlite://")
        Base.metadata.create_all(engine)
        with Session(engine) as session:
            for i in range(PEOPLE):
                p = Person(name="person %d" % i)
                p.addresses = [Address(email="p%d.%d@example.org" % (i, k)) for k in range(2)]
                session.add(p)
            session.commit()
            found = session.scalars(select(Person).where(Person.name.like("person 1%"))).all()
            emails = sum(len(p.addresses) for p in found)
        engine.dispose()
        assert emails == 2 * len(found) > 0
