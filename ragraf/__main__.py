from ragraf.cli import main

main()
