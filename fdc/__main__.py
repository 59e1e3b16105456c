from fdc.cli import main

main()
