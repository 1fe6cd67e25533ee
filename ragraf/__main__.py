from ragraf.cli.app import main

main()
