"""Every model API behind one neutral stream (DESIGN §4a; docs/ARCHITECTURE.md, "Wires")."""
