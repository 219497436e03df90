import plug
